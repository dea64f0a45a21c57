/** GET /v1/me and lastUsedAt bookkeeping. */
import Koa from 'koa';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { accountRouter } from '../../src/http/v1/account.js';
import { resolveCaller } from '../../src/http/auth.js';
import { errorHandler } from '../../src/http/error-handler.js';
import type { AppState } from '../../src/http/types.js';

let t: TestApp;
afterEach(() => t?.close());

describe('GET /v1/me', () => {
  it('describes the tenant, the calling key and the plan from the plans table', async () => {
    t = makeTestApp();
    const tenant = await t.services.accounts.createTenant({ name: 'Acme', plan: 'pro', email: 'ops@acme.test' });
    const made = await t.services.accounts.createKey(tenant.id, { name: 'backend', scopes: ['read'] });
    t.clock.advance(5000);
    const res = await t.http.get('/v1/me').set('Authorization', `Bearer ${made.secret}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      tenant: { id: tenant.id, name: 'Acme', plan: 'pro', createdAt: 1_700_000_000 },
      key: {
        id: made.key.id,
        name: 'backend',
        prefix: made.secret.slice(0, 13),
        scopes: ['read'],
        createdAt: 1_700_000_000,
        lastUsedAt: 1_700_000_005,
        expiresAt: null,
      },
      plan: { name: 'pro', requestsPerMinute: 3000, maxKeys: 20, maxSubscriptions: 500 },
      rateLimit: expect.objectContaining({ limit: 3000 }),
    });
    expect(JSON.stringify(res.body)).not.toContain(made.secret);
  });

  it('follows an edited plan row', async () => {
    t = makeTestApp();
    await t.sql("UPDATE plans SET requests_per_minute = 1234, max_keys = 7 WHERE name = 'free'");
    const { secret } = t.makeKey();
    const res = await t.http.get('/v1/me').set('x-api-key', secret);
    expect(res.body.plan).toEqual({ name: 'free', requestsPerMinute: 1234, maxKeys: 7, maxSubscriptions: 10 });
  });

  it("reports the limiter's state for the request, consistent with the RateLimit headers", async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const res = await t.http.get('/v1/me').set('x-api-key', secret);
    const rl = res.body.rateLimit;
    // The first request of a fresh bucket: this one is counted, 299 are left.
    expect(rl).toEqual({ limit: 300, remaining: 299, resetSeconds: 1 });
    expect(res.headers['ratelimit-remaining']).toBe('299');
    expect(res.headers['ratelimit-limit']).toBe('300');
    const next = await t.http.get('/v1/me').set('x-api-key', secret);
    expect(next.body.rateLimit.remaining).toBe(298);
    expect(next.headers['ratelimit-remaining']).toBe('298');
  });

  it('reads rateLimit from ctx.state, and reports the full allowance when no limiter set it', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey({ plan: 'enterprise' });
    const build = (state?: AppState['rateLimit']) => {
      const app = new Koa<AppState>();
      app.use(async (ctx, next) => {
        ctx.state.requestId = 'r';
        await next();
      });
      app.use(errorHandler());
      app.use(resolveCaller(t.app.deps));
      app.use(async (ctx, next) => {
        if (state) ctx.state.rateLimit = state;
        await next();
      });
      app.use(accountRouter(t.app.deps).routes());
      return request(app.callback());
    };
    const limited = await build({ limit: 30000, remaining: 17, resetSeconds: 42, policy: '30000;w=60' }).get('/v1/me').set('x-api-key', secret);
    expect(limited.body.rateLimit).toEqual({ limit: 30000, remaining: 17, resetSeconds: 42 });
    const none = await build().get('/v1/me').set('x-api-key', secret);
    expect(none.body.rateLimit).toEqual({ limit: 30000, remaining: 30000, resetSeconds: 0 });
  });
});

describe('lastUsedAt', () => {
  // Once the store is settled: a request does not wait for its lastUsedAt write.
  const lastUsed = async (keyId: string) => {
    await t.settled();
    return (await t.services.repos.accounts.key(keyId))!.lastUsedAt;
  };

  it('is written on first use, then at most once a minute per key', async () => {
    t = makeTestApp();
    const { secret, keyId } = t.makeKey();
    expect(await lastUsed(keyId)).toBeNull();
    await t.http.get('/v1/me').set('x-api-key', secret);
    const first = t.clock.seconds();
    expect(await lastUsed(keyId)).toBe(first);
    for (let i = 0; i < 5; i++) {
      t.clock.advance(11_000); // 55 s in all
      expect((await t.http.get('/v1/me').set('x-api-key', secret)).status).toBe(200);
    }
    expect(await lastUsed(keyId)).toBe(first);
    t.clock.advance(5_000);
    const res = await t.http.get('/v1/me').set('x-api-key', secret);
    expect(await lastUsed(keyId)).toBe(first + 60);
    expect(res.body.key.lastUsedAt).toBe(first + 60);
  });

  it('is not written for a revoked key or when the key is only presented with a conflict', async () => {
    t = makeTestApp();
    const a = t.makeKey();
    const b = t.makeKey();
    await t.http.get('/v1/me').set('x-api-key', a.secret).set('Authorization', `Bearer ${b.secret}`);
    expect(await lastUsed(a.keyId)).toBeNull();
    await t.services.accounts.revokeKey(b.keyId);
    await t.http.get('/v1/me').set('x-api-key', b.secret);
    expect(await lastUsed(b.keyId)).toBeNull();
  });
});
