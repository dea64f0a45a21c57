/** Callers and CORS on /udf: ?key=, x-api-key and Bearer; the UDF error form of a 401; CORS headers and preflight. */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

let t: TestApp;
afterEach(() => t?.close());

describe('/udf callers', () => {
  it('answers anonymous callers', async () => {
    t = makeTestApp();
    expect((await t.http.get('/udf/config')).status).toBe(200);
  });

  it('accepts a valid key as ?key=, x-api-key or Bearer', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    expect((await t.http.get('/udf/config').query({ key: secret })).status).toBe(200);
    expect((await t.http.get('/udf/time').set('x-api-key', secret)).status).toBe(200);
    expect((await t.http.get('/udf/search').set('Authorization', `Bearer ${secret}`)).status).toBe(200);
  });

  it('answers an invalid ?key= with 401 in the combined UDF and API error form', async () => {
    t = makeTestApp();
    for (const path of ['/udf/config', '/udf/history?symbol=X&resolution=1&from=1&to=2']) {
      const res = await t.http.get(path).query({ key: 'svc_live_notarealkey0000000000000000' });
      expect(res.status, path).toBe(401);
      expect(res.body).toMatchObject({ s: 'error', errmsg: expect.any(String), error: { code: 'unauthorized' } });
      expect(res.body.errmsg).toBe(res.body.error.message);
    }
  });

  it('answers a revoked key given as ?key= with 401', async () => {
    t = makeTestApp();
    const { secret, keyId } = t.makeKey();
    expect((await t.http.get('/udf/config').query({ key: secret })).status).toBe(200);
    await t.services.accounts.revokeKey(keyId);
    const res = await t.http.get('/udf/config').query({ key: secret });
    expect(res.status).toBe(401);
    expect(res.body.s).toBe('error');
  });
});

describe('/udf routing errors', () => {
  it('answers an unknown /udf path with 404 and a wrong method with 405, both in the UDF form', async () => {
    t = makeTestApp();
    // (/udf/marks exists since issue 32; timescale marks are not served)
    const missing = await t.http.get('/udf/timescale_marks');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ s: 'error', errmsg: expect.any(String), error: { code: 'not_found' } });
    const wrong = await t.http.post('/udf/history');
    expect(wrong.status).toBe(405);
    expect(wrong.body).toMatchObject({ s: 'error', error: { code: 'method_not_allowed' } });
  });
});

describe('/udf CORS', () => {
  it('allows any origin by default, varies on Origin and exposes the rate-limit and request-id headers', async () => {
    t = makeTestApp();
    const res = await t.http.get('/udf/config').set('Origin', 'https://charts.example');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers.vary).toMatch(/Origin/i);
    const exposed = String(res.headers['access-control-expose-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'x-request-id']) expect(exposed).toContain(h);
  });

  it('keeps the CORS headers on UDF errors', async () => {
    t = makeTestApp();
    const res = await t.http.get('/udf/symbols').query({ symbol: 'NOPE' }).set('Origin', 'https://charts.example');
    expect(res.status).toBe(404);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers a preflight with 204, allowing x-api-key, authorization and content-type', async () => {
    t = makeTestApp();
    const res = await t.http
      .options('/udf/history')
      .set('Origin', 'https://charts.example')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'x-api-key');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const allowed = String(res.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    for (const h of ['x-api-key', 'authorization', 'content-type']) expect(allowed).toContain(h);
    expect(String(res.headers['access-control-allow-methods'])).toContain('GET');
  });

  it('echoes only the configured origins when CORS_ORIGINS is a list', async () => {
    t = makeTestApp({ env: { CORS_ORIGINS: 'https://a.example,https://b.example' } });
    const ok = await t.http.get('/udf/config').set('Origin', 'https://b.example');
    expect(ok.headers['access-control-allow-origin']).toBe('https://b.example');
    const other = await t.http.get('/udf/config').set('Origin', 'https://evil.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
