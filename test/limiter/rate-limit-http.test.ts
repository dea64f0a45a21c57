/**
 * The limiter through the real middleware chain (RATE_LIMIT_ANON=5/60, fake clock): headers on
 * every status, 429 and recovery, what is not counted, keyed vs anonymous buckets.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { addPlan, limitedApp, limits, type LimitedApp } from './limited-app.js';

let t: LimitedApp;
afterEach(() => t?.close());

describe('RateLimit-* headers', () => {
  it('count down on every counted request, with Reset and Policy', async () => {
    t = limitedApp();
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push(limits(await t.http.get('/probe/ok').expect(200)));
    expect(seen.map((s) => s.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(seen.map((s) => s.reset)).toEqual([12, 24, 36, 48, 60]);
    expect(seen.every((s) => s.limit === 5 && s.policy === '5;w=60')).toBe(true);
  });

  it('are on 400, 401, 404, 405 and 500 answers, each of which is counted', async () => {
    t = limitedApp();
    const bad = await t.http.get('/probe/bad').expect(400);
    expect(bad.body.error.code).toBe('invalid_parameter');
    expect(limits(bad)).toEqual({ limit: 5, remaining: 4, reset: 12, policy: '5;w=60' });

    const unauthorized = await t.http.get('/probe/ok').set('x-api-key', 'svc_live_nope').expect(401);
    expect(limits(unauthorized).remaining).toBe(3);

    const missing = await t.http.get('/v1/no-such-route').expect(404);
    expect(limits(missing).remaining).toBe(2);

    const notAllowed = await t.http.post('/healthz').expect(405);
    expect(limits(notAllowed).remaining).toBe(1);

    const boom = await t.http.get('/probe/boom').expect(500);
    expect(boom.body.error.code).toBe('internal');
    expect(limits(boom)).toEqual({ limit: 5, remaining: 0, reset: 60, policy: '5;w=60' });
  });

  it('are on a 304 answer, which is counted', async () => {
    t = limitedApp();
    const first = await t.http.get('/probe/ok').expect(200);
    expect(first.headers.etag).toBe(`"${createHash('sha1').update(first.text).digest('base64url')}"`);
    const again = await t.http.get('/probe/ok').set('If-None-Match', first.headers.etag!).expect(304);
    expect(limits(again)).toEqual({ limit: 5, remaining: 3, reset: 24, policy: '5;w=60' });
  });

  it('are on a 400 for conflicting credentials, counted against the IP', async () => {
    t = limitedApp();
    const { secret } = t.makeKey();
    const res = await t.http.get('/probe/ok').set('x-api-key', secret).set('authorization', 'Bearer svc_live_other').expect(400);
    expect(res.body.error.code).toBe('conflicting_credentials');
    expect(limits(res)).toMatchObject({ limit: 5, remaining: 4 });
  });

  it('are on CORS preflights, which are not counted', async () => {
    t = limitedApp();
    await t.http.get('/probe/ok').expect(200);
    for (let i = 0; i < 10; i++) {
      const res = await t.http.options('/probe/ok').set('Origin', 'https://example.com').set('Access-Control-Request-Method', 'GET').expect(204);
      expect(limits(res)).toEqual({ limit: 5, remaining: 4, reset: 12, policy: '5;w=60' });
    }
    expect(limits(await t.http.get('/probe/ok')).remaining).toBe(3);
  });
});

describe('over the limit', () => {
  it('answers 429 rate_limited with Retry-After and does not run the route', async () => {
    t = limitedApp();
    let ran = 0;
    t.app.use(async (ctx, next) => {
      if (ctx.path !== '/probe/count') return next();
      ran++;
      ctx.body = { ran };
    });
    const http = (await import('supertest')).default(t.app.callback());
    for (let i = 0; i < 5; i++) await http.get('/probe/count').expect(200);
    const res = await http.get('/probe/count').expect(429);
    expect(ran).toBe(5);
    expect(res.body.error.code).toBe('rate_limited');
    expect(res.headers['retry-after']).toBe('12');
    expect(limits(res)).toEqual({ limit: 5, remaining: 0, reset: 60, policy: '5;w=60' });
  });

  it('recovers one request per window/limit, exactly at the boundary', async () => {
    t = limitedApp();
    for (let i = 0; i < 5; i++) await t.http.get('/probe/ok').expect(200);
    t.clock.advance(11_000);
    expect((await t.http.get('/probe/ok').expect(429)).headers['retry-after']).toBe('1');
    t.clock.advance(999);
    expect((await t.http.get('/probe/ok').expect(429)).headers['retry-after']).toBe('1');
    t.clock.advance(1);
    expect(limits(await t.http.get('/probe/ok').expect(200))).toMatchObject({ remaining: 0, reset: 60 });
    await t.http.get('/probe/ok').expect(429);
    t.clock.advance(60_000);
    const seen = [];
    for (let i = 0; i < 6; i++) seen.push((await t.http.get('/probe/ok')).status);
    expect(seen).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('refused requests do not push recovery further away', async () => {
    t = limitedApp();
    for (let i = 0; i < 5; i++) await t.http.get('/probe/ok').expect(200);
    for (let i = 0; i < 20; i++) await t.http.get('/probe/ok').expect(429);
    t.clock.advance(12_000);
    await t.http.get('/probe/ok').expect(200);
  });

  it('answers 429 before 401 once an invalid key has emptied the IP bucket', async () => {
    t = limitedApp();
    for (let i = 0; i < 5; i++) await t.http.get('/probe/ok').set('x-api-key', 'svc_live_wrong').expect(401);
    const res = await t.http.get('/probe/ok').set('x-api-key', 'svc_live_wrong').expect(429);
    expect(res.body.error.code).toBe('rate_limited');
    // The same IP without a key shares that bucket.
    await t.http.get('/probe/ok').expect(429);
  });

  it('never admits more than the limit from concurrent requests', async () => {
    t = limitedApp();
    const statuses = await Promise.all(Array.from({ length: 15 }, () => t.http.get('/probe/ok').then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });
});

describe('not counted', () => {
  it('/healthz carries the bucket headers, is not counted and is served when the bucket is empty', async () => {
    t = limitedApp();
    await t.http.get('/probe/ok');
    for (let i = 0; i < 10; i++) expect(limits(await t.http.get('/healthz').expect(200))).toMatchObject({ limit: 5, remaining: 4, reset: 12 });
    expect(limits(await t.http.head('/healthz').expect(200))).toMatchObject({ remaining: 4 });
    for (let i = 0; i < 4; i++) await t.http.get('/probe/ok').expect(200);
    expect(limits(await t.http.get('/healthz').expect(200))).toMatchObject({ remaining: 0, reset: 60 });
  });

  it("static assets under /assets/ are free for a caller's first 50 a minute, then counted like any request", async () => {
    t = limitedApp();
    for (let i = 0; i < 5; i++) await t.http.get('/probe/ok');
    for (let i = 0; i < 50; i++) {
      const res = await t.http.get('/assets/app.js');
      expect(res.status).not.toBe(429);
      expect(limits(res)).toMatchObject({ limit: 5, remaining: 0, reset: 60 });
    }
    const refused = await t.http.get('/assets/app.js');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    // 12 s later: ten free asset requests are back, and one request in the main bucket.
    t.clock.advance(12_000);
    for (let i = 0; i < 10; i++) expect((await t.http.get('/assets/app.js')).status).not.toBe(429);
    expect(limits(await t.http.get('/assets/app.js'))).toMatchObject({ remaining: 0 });
    expect((await t.http.get('/assets/app.js')).status).toBe(429);
    await t.http.get('/probe/ok').expect(429);
  });

  it('gives every caller its own free assets: another IP is not affected', async () => {
    t = limitedApp({ TRUST_PROXY: '1' });
    for (let i = 0; i < 56; i++) await t.http.get('/assets/app.js').set('X-Forwarded-For', '198.51.100.1');
    expect((await t.http.get('/assets/app.js').set('X-Forwarded-For', '198.51.100.1')).status).toBe(429);
    const other = await t.http.get('/assets/app.js').set('X-Forwarded-For', '198.51.100.2');
    expect(other.status).not.toBe(429);
    expect(limits(other)).toMatchObject({ remaining: 5 });
  });

  it('a fresh client sees a full bucket on a peek', async () => {
    t = limitedApp();
    expect(limits(await t.http.get('/healthz'))).toEqual({ limit: 5, remaining: 5, reset: 0, policy: '5;w=60' });
  });
});

describe('keyed callers', () => {
  it('count against their tenant, from the plan, not against the IP', async () => {
    t = limitedApp();
    const { secret } = t.makeKey({ plan: 'free' });
    const res = await t.http.get('/probe/ok').set('x-api-key', secret).expect(200);
    expect(limits(res)).toEqual({ limit: 300, remaining: 299, reset: 1, policy: '300;w=60' });
    for (let i = 0; i < 5; i++) await t.http.get('/probe/ok').expect(200);
    await t.http.get('/probe/ok').expect(429);
    expect(limits(await t.http.get('/probe/ok').set('x-api-key', secret).expect(200)).remaining).toBe(298);
  });

  it('an exhausted tenant does not touch the anonymous bucket of its IP; all its keys share one bucket', async () => {
    t = limitedApp();
    addPlan(t, 'tiny', 3);
    const first = t.makeKey({ plan: 'tiny' });
    const second = t.makeKey({ tenantId: first.tenantId });
    const other = t.makeKey({ plan: 'tiny' });
    await t.http.get('/probe/ok').set('x-api-key', first.secret).expect(200);
    await t.http.get('/probe/ok').set('x-api-key', second.secret).expect(200);
    await t.http.get('/probe/ok').set('authorization', `Bearer ${first.secret}`).expect(200);
    const refused = await t.http.get('/probe/ok').set('x-api-key', second.secret).expect(429);
    expect(refused.headers['retry-after']).toBe('20');
    expect(limits(refused)).toEqual({ limit: 3, remaining: 0, reset: 60, policy: '3;w=60' });
    expect(limits(await t.http.get('/probe/ok').set('x-api-key', other.secret).expect(200)).remaining).toBe(2);
    expect(limits(await t.http.get('/probe/ok').expect(200)).remaining).toBe(4);
    expect(limits(await t.http.get('/healthz').set('x-api-key', first.secret).expect(200))).toMatchObject({ limit: 3, remaining: 0 });
  });
});
