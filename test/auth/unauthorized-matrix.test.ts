/**
 * The 401 matrix (seed rules 6-8, docs/api.md, Authentication and keys): every kind of bad key, on every route
 * class, by every channel that carries it, is 401 with WWW-Authenticate; no key is anonymous on
 * public routes and 401 on keyed ones; a valid key is never 401.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { ROUTES, expectUnauthorized, unknownKey, withQuery, type RouteClass } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

type Channel = 'x-api-key' | 'bearer' | 'query';

function send(path: string, channel: Channel, key: string) {
  if (channel === 'x-api-key') return t.http.get(path).set('x-api-key', key);
  if (channel === 'bearer') return t.http.get(path).set('Authorization', `Bearer ${key}`);
  return t.http.get(withQuery(path, `key=${encodeURIComponent(key)}`));
}

/** The channels that carry a key to a route class (?key= only on /udf). */
const channelsFor = (route: RouteClass): Channel[] => (route === 'udf' ? ['x-api-key', 'bearer', 'query'] : ['x-api-key', 'bearer']);

/** Bad keys of every kind; the revoked and expired ones are made for real. */
async function badKeys(): Promise<Record<string, string>> {
  const revoked = t.makeKey();
  const del = await t.http.delete(`/v1/keys/${revoked.keyId}`).set('x-api-key', revoked.secret);
  expect(del.status).toBe(200);

  const rotated = t.makeKey();
  const rot = await t.http.post(`/v1/keys/${rotated.keyId}/rotate`).set('x-api-key', rotated.secret).send({ graceSeconds: 30 });
  expect(rot.status).toBe(201);
  t.clock.advance(30_000); // the grace period is over

  return {
    unknown: unknownKey(),
    'too short': 'svc_live_abc123',
    'bad characters': 'svc_live_' + 'a-b_c.d~'.repeat(5),
    'prefix only': 'svc_live_',
    'overlong (257)': 'svc_live_' + 'a'.repeat(248),
    'overlong (4 KB)': 'svc_live_' + 'b'.repeat(4096),
    'sql-looking': "svc_live_' OR '1'='1' --",
    revoked: revoked.secret,
    'expired after rotation': rotated.secret,
  };
}

describe('the 401 matrix', () => {
  for (const route of Object.keys(ROUTES) as RouteClass[]) {
    it(`answers every bad key on a ${route} route with 401, on every channel`, async () => {
      t = makeTestApp();
      const keys = await badKeys();
      for (const [kind, key] of Object.entries(keys)) {
        for (const channel of channelsFor(route)) {
          const res = await send(ROUTES[route], channel, key);
          expectUnauthorized(res, `${ROUTES[route]} ${kind} via ${channel}`);
        }
      }
    });
  }

  it('answers a non-prefixed garbage value in x-api-key with 401 on every route class', async () => {
    t = makeTestApp();
    for (const value of ['not-a-key', '12345', 'sk_live_' + 'a'.repeat(40), 'SVC_LIVE_' + 'a'.repeat(40)]) {
      for (const route of Object.keys(ROUTES) as RouteClass[]) {
        expectUnauthorized(await t.http.get(ROUTES[route]).set('x-api-key', value), `${route} ${value}`);
      }
      expectUnauthorized(await t.http.get(withQuery(ROUTES.udf, `key=${value}`)), `udf ?key=${value}`);
    }
  });

  it("answers a key close to Node's 16 KB header limit with 401, not an error", async () => {
    t = makeTestApp();
    const huge = 'svc_live_' + 'c'.repeat(15_000);
    for (const route of Object.keys(ROUTES) as RouteClass[]) {
      expectUnauthorized(await t.http.get(ROUTES[route]).set('x-api-key', huge), route);
      expectUnauthorized(await t.http.get(ROUTES[route]).set('Authorization', `Bearer ${huge}`), route);
    }
    expectUnauthorized(await t.http.get(withQuery(ROUTES.udf, `key=${'svc_live_' + 'd'.repeat(12_000)}`)), ROUTES.udf);
  });

  it("leaves a key beyond Node's 16 KB header limit to Node: 431 before the app runs", async () => {
    t = makeTestApp();
    const res = await t.http.get(ROUTES.keyed).set('x-api-key', 'svc_live_' + 'e'.repeat(17_000));
    expect(res.status).toBe(431);
  });

  it('leaves public and UDF routes anonymous without a key, and 401s the keyed one', async () => {
    t = makeTestApp();
    expect((await t.http.get(ROUTES.public)).status).not.toBe(401);
    expect((await t.http.get(ROUTES.udf)).status).not.toBe(401);
    expectUnauthorized(await t.http.get(ROUTES.keyed), ROUTES.keyed);
    for (const path of ['/v1/keys', '/v1/keys/key_x']) {
      const res = path === '/v1/keys' ? await t.http.get(path) : await t.http.delete(path);
      expectUnauthorized(res, path);
    }
    expectUnauthorized(await t.http.post('/v1/keys').send({}), '/v1/keys');
    expectUnauthorized(await t.http.post('/v1/keys/key_x/rotate').send({}), '/v1/keys/key_x/rotate');
  });

  it('checks the key before the query: no key is 401 and a key without the scope 403, even with a bad query', async () => {
    t = makeTestApp();
    const ingestOnly = t.makeKey({ scopes: ['ingest'] });
    for (const query of ['?limit=abc', '?limit=1&limit=2', '?cursor=forged']) {
      expectUnauthorized(await t.http.get(`/v1/events${query}`), `/v1/events${query}`);
      const res = await t.http.get(`/v1/events${query}`).set('x-api-key', ingestOnly.secret);
      expect(res.status, query).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });

  it('never answers a valid key with 401, on any route class or channel', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    for (const route of Object.keys(ROUTES) as RouteClass[]) {
      for (const channel of channelsFor(route)) {
        const res = await send(ROUTES[route], channel, secret);
        expect(res.status, `${route} via ${channel}`).not.toBe(401);
        if (route === 'keyed') expect(res.status).toBe(200);
      }
    }
  });

  it('keeps a rotated key valid during its grace period, up to the second before expiresAt', async () => {
    t = makeTestApp();
    const old = t.makeKey();
    const rot = await t.http.post(`/v1/keys/${old.keyId}/rotate`).set('x-api-key', old.secret).send({ graceSeconds: 60 });
    expect(rot.body.previous.expiresAt).toBe(t.clock.seconds() + 60);
    t.clock.advance(59_999);
    for (const route of Object.keys(ROUTES) as RouteClass[]) {
      expect((await t.http.get(ROUTES[route]).set('x-api-key', old.secret)).status, route).not.toBe(401);
    }
    t.clock.advance(1);
    for (const route of Object.keys(ROUTES) as RouteClass[]) {
      const res = await t.http.get(ROUTES[route]).set('x-api-key', old.secret);
      expectUnauthorized(res, route);
      expect(res.body.error.message).toBe('the API key has expired');
    }
  });
});
