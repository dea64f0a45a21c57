/**
 * A cached key is read again after KEY_CACHE_MS, so a plan edited in the store where no instance
 * hears of it (an operator's UPDATE on a shared PostgreSQL) still takes effect within a minute.
 * Here the edit goes straight to the store's tables without a notice (t.sql), which no change check sees.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { KEY_CACHE_MS } from '../../src/http/auth.js';

let t: TestApp;
afterEach(() => t?.close());

describe('the key cache', () => {
  it('shows a plan edited without a notice once the cached key is KEY_CACHE_MS old, not before', async () => {
    t = makeTestApp();
    const k = t.makeKey({ plan: 'pro' });
    const limit = async () => (await t.http.get('/v1/me').set('x-api-key', k.secret)).headers['ratelimit-limit'];
    expect(await limit()).toBe('3000');
    await t.sql("UPDATE plans SET requests_per_minute = 4500 WHERE name = 'pro'");
    t.clock.advance(KEY_CACHE_MS - 1);
    expect(await limit()).toBe('3000');
    t.clock.advance(1);
    expect(await limit()).toBe('4500');
    expect(KEY_CACHE_MS).toBeLessThanOrEqual(60_000);
  });
});
