/**
 * Keys longer than 256 characters (and other values that cannot be ours) are refused before any
 * hashing or store lookup. hashKey is wrapped in a spy that still calls the real function.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as ApiKey from '../../src/domain/api-key.js';

vi.mock('../../src/domain/api-key.js', async (importOriginal) => {
  const real = await importOriginal<typeof ApiKey>();
  return { ...real, hashKey: vi.fn(real.hashKey) };
});

const { hashKey } = await import('../../src/domain/api-key.js');
const { makeTestApp } = await import('../helpers/make-test-app.js');
const { ROUTES, expectUnauthorized, withQuery } = await import('./support.js');

let t: ReturnType<typeof makeTestApp>;
afterEach(() => t?.close());

describe('refusing garbage without hashing it', () => {
  it('answers keys over 256 characters with 401 without hashing them', async () => {
    t = makeTestApp();
    const spy = vi.mocked(hashKey);
    spy.mockClear();
    for (const key of ['svc_live_' + 'a'.repeat(248), 'svc_live_' + 'Q'.repeat(10_000)]) {
      expect(key.length).toBeGreaterThan(256);
      expectUnauthorized(await t.http.get(ROUTES.public).set('x-api-key', key), ROUTES.public);
      expectUnauthorized(await t.http.get(ROUTES.keyed).set('Authorization', `Bearer ${key}`), ROUTES.keyed);
      expectUnauthorized(await t.http.get(withQuery(ROUTES.udf, `key=${key}`)), ROUTES.udf);
    }
    for (const key of ['not-a-key', 'svc_live_short', 'svc_live_' + '-'.repeat(40)]) {
      expectUnauthorized(await t.http.get(ROUTES.public).set('x-api-key', key), ROUTES.public);
    }
    expect(spy).not.toHaveBeenCalled();
  });

  it('does hash a well-formed key of up to 256 characters (and answers 401 when unknown)', async () => {
    t = makeTestApp();
    const spy = vi.mocked(hashKey);
    spy.mockClear();
    const key = 'svc_live_' + 'a'.repeat(247);
    expect(key.length).toBe(256);
    expectUnauthorized(await t.http.get(ROUTES.public).set('x-api-key', key), ROUTES.public);
    expect(spy).toHaveBeenCalledTimes(1);
  });
});
