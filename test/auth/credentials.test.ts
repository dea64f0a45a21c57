/** Which credentials a request presents: x-api-key, Bearer svc_live_..., ?key= on /udf only. */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { ROUTES, expectUnauthorized, unknownKey, withQuery } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

describe('presenting a key', () => {
  it('accepts a key in x-api-key', async () => {
    t = makeTestApp();
    const { secret, keyId } = t.makeKey();
    const res = await t.http.get('/v1/me').set('x-api-key', secret);
    expect(res.status).toBe(200);
    expect(res.body.key.id).toBe(keyId);
  });

  it('accepts a key as Authorization: Bearer, with the scheme in any case', async () => {
    t = makeTestApp();
    const { secret, keyId } = t.makeKey();
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await t.http.get('/v1/me').set('Authorization', `${scheme} ${secret}`);
      expect(res.status, scheme).toBe(200);
      expect(res.body.key.id).toBe(keyId);
    }
  });

  it('accepts ?key= on /udf routes', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const good = await t.http.get(withQuery(ROUTES.udf, `key=${secret}`));
    expect(good.status).not.toBe(401);
    const bad = await t.http.get(withQuery(ROUTES.udf, `key=${unknownKey()}`));
    expectUnauthorized(bad, ROUTES.udf);
  });

  it('ignores ?key= outside /udf: a keyed route without a header is 401, a public one is anonymous', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const keyed = await t.http.get(`/v1/me?key=${secret}`);
    expectUnauthorized(keyed, '/v1/me');
    expect(keyed.body.error.message).toBe('a valid API key is required');
    const pub = await t.http.get(withQuery(ROUTES.public, `key=${unknownKey()}`));
    expect(pub.status).not.toBe(401);
  });

  it('treats empty values as absent on every channel', async () => {
    t = makeTestApp();
    for (const [name, value] of [
      ['x-api-key', ''],
      ['Authorization', 'Bearer'],
      ['Authorization', 'Bearer   '],
    ] as const) {
      const pub = await t.http.get(ROUTES.public).set(name, value);
      expect(pub.status, `${name}: "${value}"`).not.toBe(401);
      const keyed = await t.http.get(ROUTES.keyed).set(name, value);
      expectUnauthorized(keyed, ROUTES.keyed);
    }
    expect((await t.http.get(withQuery(ROUTES.udf, 'key='))).status).not.toBe(401);
  });

  it('ignores Bearer values that are not ours (and other schemes)', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    for (const authz of ['Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc', 'Basic dXNlcjpwYXNz', `Token ${secret}`, `Bearer${secret}`]) {
      const pub = await t.http.get(ROUTES.public).set('Authorization', authz);
      expect(pub.status, authz).not.toBe(401);
      expectUnauthorized(await t.http.get(ROUTES.keyed).set('Authorization', authz), ROUTES.keyed);
      // Not ours, so not a second credential either.
      const both = await t.http.get(ROUTES.keyed).set('Authorization', authz).set('x-api-key', secret);
      expect(both.status, authz).toBe(200);
    }
  });

  it('takes a Bearer value with our prefix as a key even when it is malformed', async () => {
    t = makeTestApp();
    for (const authz of ['Bearer svc_live_', 'Bearer svc_live_short', `Bearer ${unknownKey()} trailing`, 'Bearer svc_live_' + '!'.repeat(40)]) {
      expectUnauthorized(await t.http.get(ROUTES.public).set('Authorization', authz), ROUTES.public);
    }
  });

  it('accepts the same key sent on several channels at once', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const res = await t.http.get('/v1/me').set('x-api-key', secret).set('Authorization', `Bearer ${secret}`);
    expect(res.status).toBe(200);
    const udf = await t.http
      .get(withQuery(ROUTES.udf, `key=${secret}`))
      .set('x-api-key', secret)
      .set('Authorization', `Bearer ${secret}`);
    expect(udf.status).not.toBe(401);
  });

  it('answers two different keys with 400 conflicting_credentials, whichever two channels carry them', async () => {
    t = makeTestApp();
    const a = t.makeKey().secret;
    const b = t.makeKey().secret;
    const cases: Array<[string, Record<string, string>]> = [
      ['/v1/me', { 'x-api-key': a, Authorization: `Bearer ${b}` }],
      [ROUTES.public, { 'x-api-key': a, Authorization: `Bearer ${unknownKey()}` }],
      [withQuery(ROUTES.udf, `key=${b}`), { 'x-api-key': a }],
      [withQuery(ROUTES.udf, `key=${b}`), { Authorization: `Bearer ${a}` }],
    ];
    for (const [path, headers] of cases) {
      const res = await t.http.get(path).set(headers);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe('conflicting_credentials');
    }
  });

  it('treats a repeated x-api-key header like two channels: the same key is fine, two keys conflict', async () => {
    t = makeTestApp();
    const a = t.makeKey();
    const b = t.makeKey();
    // superagent sends an array value as repeated headers (its types only admit that for Cookie).
    const repeated = (...values: string[]) => values as unknown as string;
    const same = await t.http.get('/v1/me').set('x-api-key', repeated(a.secret, a.secret));
    expect(same.status).toBe(200);
    expect(same.body.key.id).toBe(a.keyId);
    const two = await t.http.get('/v1/me').set('x-api-key', repeated(a.secret, b.secret));
    expect(two.status).toBe(400);
    expect(two.body.error.code).toBe('conflicting_credentials');
  });

  it('refuses ?key= given twice on /udf', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const res = await t.http.get(withQuery(ROUTES.udf, `key=${secret}&key=${secret}`));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'key' });
    expect(res.body.s).toBe('error');
  });

  it('answers /v1/me without any key with 401 and WWW-Authenticate', async () => {
    t = makeTestApp();
    expectUnauthorized(await t.http.get('/v1/me'), '/v1/me');
  });
});
