/** The limiter middleware on its own: it records a decision and never throws, even if the limiter does. */
import Koa from 'koa';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { errorHandler } from '../../src/http/error-handler.js';
import { rateLimit } from '../../src/http/rate-limit.js';
import { enforceRateLimit } from '../../src/http/rate-limit-headers.js';
import type { Limiter } from '../../src/limiter/limiter.js';
import type { AppState } from '../../src/http/types.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

let t: TestApp;
afterEach(() => t?.close());

function appWith(limiter?: Limiter) {
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(async (ctx, next) => {
    ctx.state.requestId = 'r1';
    ctx.state.caller = { kind: 'anonymous' };
    await next();
  });
  app.use(errorHandler());
  app.use(rateLimit(t.app.deps, limiter));
  app.use(enforceRateLimit());
  app.use((ctx) => {
    ctx.body = { state: ctx.state.rateLimit ?? null };
  });
  return request(app.callback());
}

describe('rateLimit middleware', () => {
  it('puts the decision in ctx.state.rateLimit', async () => {
    t = makeTestApp({ env: { RATE_LIMIT_ANON: '2/10' } });
    const res = await appWith().get('/x').expect(200);
    expect(res.body.state).toEqual({ limit: 2, remaining: 1, resetSeconds: 5, policy: '2;w=10' });
  });

  it('serves the request unlimited when the limiter itself fails', async () => {
    t = makeTestApp();
    const broken = {
      ip: () => {
        throw new Error('broken');
      },
      tenant: () => {
        throw new Error('broken');
      },
    } as unknown as Limiter;
    const res = await appWith(broken).get('/x').expect(200);
    expect(res.body.state).toBeNull();
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });

  it('gives every app its own buckets, shared by all its requests', async () => {
    t = makeTestApp({ env: { RATE_LIMIT_ANON: '1/60' } });
    const other = makeTestApp({ env: { RATE_LIMIT_ANON: '1/60' } });
    try {
      await t.http.get('/udf/time').expect(200);
      await t.http.get('/udf/time').expect(429);
      await other.http.get('/udf/time').expect(200);
    } finally {
      other.close();
    }
  });
});
