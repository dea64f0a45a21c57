import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers/make-test-app.js';
import { testEngine } from './helpers/pg-test-store.js';

let t: TestApp;
afterEach(() => t?.close());

describe('app skeleton', () => {
  it('answers /healthz with the store status', async () => {
    t = makeTestApp({ env: { INSTANCE_ID: 'app-1' } });
    const res = await t.http.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', instance: 'app-1', store: { kind: testEngine(), state: 'up' }, redis: 'off' });
  });

  it('answers an unknown route with 404 not_found in the envelope, with the request id', async () => {
    t = makeTestApp();
    const res = await t.http.get('/nope').set('X-Request-Id', 'abc-123');
    expect(res.status).toBe(404);
    expect(res.headers['x-request-id']).toBe('abc-123');
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'no such route', requestId: 'abc-123' } });
  });

  it('replaces a request id that is not a sane token with a new UUID', async () => {
    t = makeTestApp();
    const res = await t.http.get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a wrong method with 405 method_not_allowed and an Allow header', async () => {
    t = makeTestApp();
    const res = await t.http.post('/healthz');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expect(res.body.error.code).toBe('method_not_allowed');
  });

  it('answers a thrown internal error with 500 internal and shows nothing of it', async () => {
    t = makeTestApp();
    await t.store.close(); // the route's statement now throws (/healthz answers 503 "down" instead)
    const res = await t.http.get('/udf/config');
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ code: 'internal', message: 'internal error' });
    expect(JSON.stringify(res.body)).not.toMatch(/database|sqlite|stack/i);
  });

  it('keeps the RateLimit-* headers on a 500 when the store itself fails', async () => {
    t = makeTestApp();
    await t.store.close();
    const res = await t.http.get('/udf/config');
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal');
    expect(res.headers['ratelimit-limit']).toBe('300');
    expect(res.headers['ratelimit-remaining']).toBe('299');
  });

  it('compresses JSON over 1 KB when accepted, and answers plainly when no coding is acceptable', async () => {
    t = makeTestApp();
    const gz = await t.http.get('/openapi.json').set('Accept-Encoding', 'gzip');
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    for (const ae of ['identity;q=0', '*;q=0', 'br;q=0, gzip;q=0, identity;q=0', 'x-unknown, identity;q=0']) {
      const res = await t.http.get('/openapi.json').set('Accept-Encoding', ae);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.body.openapi).toBe('3.1.0');
    }
  });

  it('gives GET JSON an ETag and answers a matching If-None-Match with 304', async () => {
    t = makeTestApp();
    const first = await t.http.get('/healthz');
    // The ETag of a JSON answer is the SHA-1 of its bytes, base64url, quoted.
    expect(first.headers.etag).toBe(`"${createHash('sha1').update(first.text).digest('base64url')}"`);
    const again = await t.http.get('/healthz').set('If-None-Match', first.headers.etag!);
    expect(again.status).toBe(304);
  });
});
