/**
 * ApiRouter (docs/architecture.md, Request flow): one declaration validates the caller, the
 * query, the path and the body, applies the schemas' defaults and hands the handler one typed
 * object. Probe routes are declared here and mounted on the real app (caller resolution,
 * limiter, error envelope), so every check runs as it does for the product's routes.
 */
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errors } from '../../src/errors.js';
import { bodyInt, bodyObject } from '../../src/http/body.js';
import { ApiRouter } from '../../src/http/route.js';
import { addressPathParam, enumParam, intParam } from '../../src/http/validate.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

const ADDRESS = 'So11111111111111111111111111111111111111112';
const HEX = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';

let t: TestApp;
let http: ReturnType<typeof request>;
afterEach(() => t?.close());

/** The app with `router` mounted after the product's routes; `seen` collects what handlers were handed. */
function withProbes(build: (router: ApiRouter<{ write: boolean }>, seen: unknown[]) => void): unknown[] {
  t = makeTestApp();
  const seen: unknown[] = [];
  const router = new ApiRouter<{ write: boolean }>({
    session: (ctx, write) => {
      if (ctx.get('x-probe-session') !== 'yes') throw errors.unauthorized('sign in first');
      return { write };
    },
  });
  build(router, seen);
  t.app.use(router.routes());
  http = request(t.app.callback());
  return seen;
}

const itemsRoute = (router: ApiRouter<{ write: boolean }>, seen: unknown[]) =>
  router.add(
    {
      method: 'get',
      path: '/v1/probe/:address/items',
      summary: 'probe',
      access: 'public',
      tag: 'probe',
      params: z.object({ address: addressPathParam() }),
      query: z.object({ limit: intParam(1, 50).prefault('20'), side: enumParam(['buy', 'sell'] as const).optional() }),
    },
    (input) => {
      seen.push(input.query);
      return { address: input.params.address, limit: input.query.limit, side: input.query.side ?? null, caller: input.caller.kind };
    },
  );

describe('ApiRouter', () => {
  it('hands the handler the parsed path and query, with the schema defaults applied', async () => {
    withProbes(itemsRoute);
    const res = await http.get(`/v1/probe/${HEX}/items?side=sell`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ address: HEX.toLowerCase(), limit: 20, side: 'sell', caller: 'anonymous' });
    expect((await http.get(`/v1/probe/${ADDRESS}/items?limit=7&side=`)).body).toEqual({ address: ADDRESS, limit: 7, side: null, caller: 'anonymous' });
  });

  it('parses an absent query once per route: every request without one is handed the same frozen defaults', async () => {
    const seen = withProbes(itemsRoute);
    await http.get(`/v1/probe/${ADDRESS}/items`).expect(200);
    await http.get(`/v1/probe/${ADDRESS}/items?limit=`).expect(200);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(seen[0]).toEqual({ limit: 20 });
  });

  it('answers a malformed path address with 400 invalid_address, and a bad, repeated or unknown parameter with 400 invalid_parameter', async () => {
    withProbes(itemsRoute);
    const bad = await http.get('/v1/probe/not-an-address/items');
    expect(bad.status).toBe(400);
    // The message points to search, where a symbol finds its address.
    expect(bad.body.error).toMatchObject({
      code: 'invalid_address',
      param: 'address',
      message:
        "address is not a well-formed address; routes take the token's or market's address; find it by symbol or name with GET /v1/search?q=not-an-address",
    });
    const cases: [string, string, string][] = [
      ['limit=0', 'limit', 'limit must be an integer from 1 to 50'],
      ['limit=1&limit=2', 'limit', 'limit must be given once'],
      ['side=both', 'side', 'side must be one of buy, sell'],
      ['sort=volume', 'sort', 'sort is not a parameter of this route'],
    ];
    for (const [q, param, message] of cases) {
      const res = await http.get(`/v1/probe/${ADDRESS}/items?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error, q).toMatchObject({ code: 'invalid_parameter', param, message });
    }
  });

  it('checks a key route’s key and scope before reading its body, and hands the handler the caller and the validated body', async () => {
    const seen = withProbes((router, s) =>
      router.add(
        {
          method: 'post',
          path: '/v1/probe/things',
          summary: 'probe',
          access: 'key',
          scope: 'manage',
          tag: 'probe',
          body: bodyObject({ n: bodyInt(1, 10).prefault(5) }),
          bodyLimit: 100,
        },
        ({ body, caller }) => {
          s.push(caller.tenant.id);
          return { n: body.n };
        },
      ),
    );
    const reader = t.makeKey({ scopes: ['read'] });
    const manager = t.makeKey({ scopes: ['read', 'manage'] });
    const garbage = (req: request.Test) => req.set('content-type', 'application/json').send('{not json');
    expect((await garbage(http.post('/v1/probe/things'))).status).toBe(401);
    const refused = await garbage(http.post('/v1/probe/things').set('x-api-key', reader.secret));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'forbidden', message: 'this API key lacks the manage scope' });

    expect((await http.post('/v1/probe/things').set('x-api-key', manager.secret).send({})).body).toEqual({ n: 5 });
    expect((await http.post('/v1/probe/things').set('x-api-key', manager.secret).send({ n: 9 })).body).toEqual({ n: 9 });
    expect(seen).toEqual([manager.tenantId, manager.tenantId]);
    const invalid = await http.post('/v1/probe/things').set('x-api-key', manager.secret).send({ n: 11 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({ code: 'invalid_body', param: 'n', message: 'n must be an integer from 1 to 10' });
    const large = await http
      .post('/v1/probe/things')
      .set('x-api-key', manager.secret)
      .send({ n: 1, pad: 'x'.repeat(100) });
    expect(large.status).toBe(413);
    expect(large.body.error.message).toBe('the request body is larger than 100 bytes');
  });

  it('refuses a body on a route that declares none, before reading it', async () => {
    withProbes(itemsRoute);
    const res = await http.get(`/v1/probe/${ADDRESS}/items`).set('content-type', 'application/json').send('{"a":1}');
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'payload_too_large', message: 'this route takes no request body' });
  });

  it('enforces a session route through the router’s resolver, telling it whether the method changes state', async () => {
    withProbes((router) => {
      router.add({ method: 'get', path: '/probe/session', summary: 'probe', access: 'session', tag: 'probe' }, ({ caller }) => caller);
      router.add({ method: 'delete', path: '/probe/session', summary: 'probe', access: 'session', tag: 'probe' }, ({ caller }) => caller);
    });
    const out = await http.get('/probe/session');
    expect(out.status).toBe(401);
    expect(out.body.error).toMatchObject({ code: 'unauthorized', message: 'sign in first' });
    expect((await http.get('/probe/session').set('x-probe-session', 'yes')).body).toEqual({ write: false });
    expect((await http.delete('/probe/session').set('x-probe-session', 'yes')).body).toEqual({ write: true });
  });

  it('runs admit after the caller check and before the body is read', async () => {
    let admitted = 0;
    withProbes((router) =>
      router.add(
        {
          method: 'post',
          path: '/probe/admit',
          summary: 'probe',
          access: 'public',
          tag: 'probe',
          body: bodyObject({}),
          admit: () => {
            if (++admitted > 1) throw errors.rateLimited('slow down', 7);
          },
        },
        () => ({ ok: true }),
      ),
    );
    const post = () => http.post('/probe/admit').set('content-type', 'application/json').send('{not json');
    expect((await post()).body.error).toMatchObject({ code: 'invalid_body', message: 'the body is not valid JSON' });
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('7');
  });

  it('refuses a declaration whose params do not match its path, or a session route without a resolver', () => {
    const router = new ApiRouter();
    expect(() => router.add({ method: 'get', path: '/v1/x/:address', summary: 's', access: 'public', tag: 't' }, () => ({}))).toThrow(
      '/v1/x/:address: params must declare exactly address',
    );
    expect(() =>
      router.add({ method: 'get', path: '/v1/x', summary: 's', access: 'public', tag: 't', params: z.object({ id: z.string() }) }, () => ({})),
    ).toThrow('/v1/x: params must declare exactly nothing');
    expect(() => router.add({ method: 'get', path: '/x', summary: 's', access: 'session', tag: 't' }, () => ({}))).toThrow(
      '/x: a session route needs a router built with a session resolver',
    );
  });
});

describe('the declared routes', () => {
  it('answer 401 on every key route without a key and on every session route without a session', async () => {
    t = makeTestApp();
    const guarded = t.app.routes.filter((s) => s.access === 'key' || s.access === 'session');
    expect(guarded.filter((s) => s.access === 'session')).toHaveLength(10);
    expect(guarded.filter((s) => s.access === 'key')).toHaveLength(10);
    for (const spec of guarded) {
      const path = spec.path.replace(':address', ADDRESS).replace(':id', 'k1');
      const res = await t.http[spec.method](path);
      expect(res.status, `${spec.method} ${spec.path}`).toBe(401);
      expect(res.body.error.message).toBe(spec.access === 'key' ? 'a valid API key is required' : 'sign in first');
    }
  });
});
