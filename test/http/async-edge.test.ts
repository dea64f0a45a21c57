/**
 * The request path and the async boundary (docs/operations.md, Many instances): a key lookup
 * goes through the async accounts repo and only a cache miss waits; a lookup under way when the
 * accounts change is not cached, so a revocation is never undone by it; a limiter that answers
 * promises (the in-memory one behind Promise.resolve, as the Redis one answers) limits exactly as
 * the synchronous one, and one that fails lets the request through unlimited.
 */
import Koa from 'koa';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { createCallerResolver } from '../../src/http/auth.js';
import { edge } from '../../src/http/edge.js';
import { gate } from '../../src/http/gate.js';
import { createLimiter } from '../../src/limiter/limiter.js';
import type { AsyncLimiter } from '../../src/limiter/redis-gcra.js';
import type { AppContext, AppState, Caller } from '../../src/http/types.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

/** A context of the test app for a request with `headers`, for the resolver alone. */
function contextWith(headers: Record<string, string>): AppContext {
  const req = new IncomingMessage(new Socket());
  req.url = '/v1/me';
  req.method = 'GET';
  req.headers = headers;
  return t.app.createContext(req, new ServerResponse(req)) as unknown as AppContext;
}

describe('key lookups through the async repo', () => {
  it('wait only on a miss: a request without a key and a cached key are answered at once', async () => {
    t = makeTestApp();
    const { secret, keyId } = t.makeKey();
    // Nothing may change the accounts during the first lookup, or its answer is rightly not kept:
    // on PostgreSQL the helpers store the key later (queued), and the app's change bus drops every
    // cached answer while it is not listening yet.
    await t.services.repos.stats.answers();
    await t.app.deps.coord.ready(10_000);
    const resolve = createCallerResolver(t.app.deps);
    expect(resolve(contextWith({}))).toEqual({ kind: 'anonymous' });
    const first = resolve(contextWith({ 'x-api-key': secret }));
    expect(first).toBeInstanceOf(Promise);
    expect(((await first) as Extract<Caller, { kind: 'key' }>).key.id).toBe(keyId);
    const second = resolve(contextWith({ 'x-api-key': secret }));
    expect(second).not.toBeInstanceOf(Promise);
    expect((second as Extract<Caller, { kind: 'key' }>).key.id).toBe(keyId);
  });

  it('do not cache a lookup the accounts changed under, so the revocation holds from the next request', async () => {
    t = makeTestApp();
    const { secret, keyId } = t.makeKey();
    // As in the test above: the key stored and the change bus listening, so that nothing but the
    // change below touches the accounts during the lookup.
    await t.services.repos.stats.answers();
    await t.app.deps.coord.ready(10_000);
    const resolve = createCallerResolver(t.app.deps);
    const pending = resolve(contextWith({ 'x-api-key': secret }));
    // The accounts change while the lookup is under way: the notice a revocation sends, told at
    // once (a real revocation's statement and the lookup's would race on PostgreSQL's pool).
    t.store.notifyChange({ tokens: new Set(), accounts: true });
    // The answer read before the change serves the request it was read for...
    expect(((await pending) as Caller).kind).toBe('key');
    // ...but is not kept: the next request reads the key again...
    const again = resolve(contextWith({ 'x-api-key': secret }));
    expect(again).toBeInstanceOf(Promise);
    expect(((await again) as Caller).kind).toBe('key');
    // ...and once the key is revoked, the next request finds it revoked.
    await t.services.accounts.revokeKey(keyId);
    const next = await resolve(contextWith({ 'x-api-key': secret }));
    expect(next).toEqual({ kind: 'invalid', error: expect.objectContaining({ status: 401, message: 'the API key was revoked' }) });
  });
});

/** The in-memory limiter answering promises, as the Redis limiter does. */
function promised(limiter: ReturnType<typeof createLimiter>): AsyncLimiter {
  return {
    ip: (...a) => Promise.resolve(limiter.ip(...a)),
    tenant: (...a) => Promise.resolve(limiter.tenant(...a)),
    sweep: () => Promise.resolve(limiter.sweep()),
    size: () => Promise.resolve(limiter.size()),
    ipTableBytes: () => Promise.resolve(limiter.ipTableBytes()),
  };
}

function appWith(limiter: AsyncLimiter) {
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(edge(t.app.deps, []));
  app.use(gate(t.app.deps, limiter));
  app.use((ctx) => void (ctx.body = { ok: true }));
  return request(app.callback());
}

describe('a limiter that answers promises', () => {
  it('counts, heads and refuses as the in-memory one does', async () => {
    t = makeTestApp({ env: { RATE_LIMIT_ANON: '2/60' } });
    const http = appWith(promised(createLimiter({ clock: t.clock })));
    const one = await http.get('/x').expect(200);
    expect([one.headers['ratelimit-limit'], one.headers['ratelimit-remaining'], one.headers['ratelimit-policy']]).toEqual(['2', '1', '2;w=60']);
    await http.get('/x').expect(200);
    const refused = await http.get('/x').expect(429);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.body.error.code).toBe('rate_limited');
  });

  it('lets the request through unlimited when its promise fails', async () => {
    t = makeTestApp({ env: { RATE_LIMIT_ANON: '1/60' } });
    const broken = promised(createLimiter({ clock: t.clock }));
    broken.ip = () => Promise.reject(new Error('redis went away'));
    const http = appWith(broken);
    for (let i = 0; i < 3; i++) {
      const res = await http.get('/x').expect(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });
});
