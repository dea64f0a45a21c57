/**
 * Support for the hostile-input tests: a seeded app listening on loopback, every route it
 * registers (from @koa/router's layers, joined with the route specs for their query parameters,
 * so new routes are covered without touching the tests), a raw HTTP client with a hang timeout,
 * and the check that an answer is either a success or a 4xx in the contract's envelope.
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import type Router from '@koa/router';
import { expect } from 'vitest';
import type { RouteSpec } from '../../src/http/route.js';
import { aHolder, aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

export type Route = { method: string; path: string; spec: RouteSpec | undefined; queryNames: string[] };

export type World = {
  t: TestApp;
  base: { host: string; port: number };
  agent: http.Agent;
  routes: Route[];
  token: string;
  otherToken: string;
  wallet: string;
  readKey: string;
  ingestKey: string;
  keyId: string;
  close(): Promise<void>;
};

/** An app with two tokens, markets, trades and holders, two keys, listening on 127.0.0.1. */
export async function hostileWorld(): Promise<World> {
  const t = makeTestApp({ env: { RATE_LIMIT_ANON: '100000000/60' } });
  const wallet = anAddress('wW');
  const a = aToken({ symbol: 'HOST' });
  const b = aToken({ symbol: 'ILE', name: "Robert'); DROP TABLE tokens;--" });
  const ma = aMarket(a.address);
  const mb = aMarket(b.address, { dex: 'orca' });
  const trades = Array.from({ length: 300 }, (_, i) =>
    aTrade(i % 3 === 0 ? b.address : a.address, {
      market: i % 3 === 0 ? mb.address : ma.address,
      blockTime: t.clock.seconds() - 40 * 86400 + i * 9000,
      side: i % 2 === 0 ? 'buy' : 'sell',
      priceUsd: 1 + (i % 17) / 10,
      wallet: i % 5 === 0 ? wallet : anAddress('wW'),
    }),
  );
  t.ingest([a, b, ma, mb, ...trades, aHolder(a.address, { owner: wallet }), aHolder(b.address)]);
  const tenant = (await t.services.accounts.createTenant({ name: 'Hostile', plan: 'enterprise' })).id;
  const read = t.makeKey({ tenantId: tenant, scopes: ['read'] });
  const ingest = t.makeKey({ tenantId: tenant, scopes: ['read', 'ingest'] });

  const server = t.app.listen(0, '127.0.0.1');
  // The client reuses keep-alive sockets; a server closing an idle one just as a request goes out
  // on it (Node's 5 s default) is a reset that says nothing about the input under test.
  server.keepAliveTimeout = 120_000;
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  return {
    t,
    base: { host: '127.0.0.1', port },
    agent,
    routes: routesOf(t),
    token: a.address,
    otherToken: b.address,
    wallet,
    readKey: read.secret,
    ingestKey: ingest.secret,
    keyId: read.keyId,
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}

/** Every (method, path) the app's router serves, with the query parameters its spec declares. */
export function routesOf(t: TestApp): Route[] {
  const specs = t.app.routes;
  const out: Route[] = [];
  for (const mw of t.app.middleware as unknown as { router?: Router }[]) {
    if (!mw.router) continue;
    for (const layer of mw.router.stack) {
      for (const m of layer.methods) {
        if (m === 'HEAD') continue;
        const method = m.toLowerCase();
        const path = String(layer.path);
        const spec = specs.find((s) => s.method === method && s.path === path);
        out.push({ method, path, spec, queryNames: Object.keys(spec?.query?.shape ?? {}) });
      }
    }
  }
  return out;
}

function decode(encoding: string, body: Buffer): Buffer {
  if (body.length === 0) return body;
  if (encoding === 'gzip') return gunzipSync(body);
  if (encoding === 'deflate') return inflateSync(body);
  if (encoding === 'br') return brotliDecompressSync(body);
  return body;
}

export type Answer = { status: number; headers: http.IncomingHttpHeaders; body: Buffer; text: string };

/** One request; rejects on a network error or when no answer comes within `timeoutMs`. */
export function ask(
  w: World,
  req: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
  timeoutMs = 10_000,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers };
    // Node sends no Content-Length for a DELETE body by itself; without one, the body would be read as the next request.
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const r = http.request({ ...w.base, agent: w.agent, method: req.method.toUpperCase(), path: req.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        try {
          const body = decode(String(res.headers['content-encoding'] ?? ''), Buffer.concat(chunks));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        } catch (err) {
          reject(new Error(`a body that does not decode as ${res.headers['content-encoding']}: ${(err as Error).message}`));
        }
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => {
      r.destroy(new Error(`no answer within ${timeoutMs} ms: ${req.method} ${req.path}`));
    }, timeoutMs);
    r.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    r.end(req.body);
  });
}

const CODES = new Set([
  'invalid_parameter',
  'invalid_cursor',
  'invalid_address',
  'invalid_body',
  'conflicting_credentials',
  'unauthorized',
  'forbidden',
  'not_found',
  'token_not_found',
  'market_not_found',
  'key_not_found',
  'subscription_not_found',
  'method_not_allowed',
  'key_limit_reached',
  'subscription_limit_reached',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
]);

/**
 * The contract for any input: an answer below 500 carrying X-Request-Id and the RateLimit-*
 * headers; a 4xx has the error envelope (with the UDF form on /udf). Returns a description of
 * what is wrong, or null.
 */
export function violation(req: { method: string; path: string }, a: Answer): string | null {
  const where = `${req.method.toUpperCase()} ${req.path.slice(0, 300)} -> ${a.status}`;
  if (a.status >= 500 || a.status < 200) return `${where}: ${a.text.slice(0, 300)}`;
  if (!a.headers['x-request-id']) return `${where}: no X-Request-Id`;
  for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy']) {
    if (a.headers[h] === undefined) return `${where}: no ${h}`;
  }
  if (a.status < 400) {
    if (req.method.toLowerCase() !== 'head' && a.status !== 304 && /json/.test(String(a.headers['content-type']))) {
      try {
        JSON.parse(a.text);
      } catch {
        return `${where}: a JSON answer that does not parse`;
      }
    }
    return null;
  }
  if (req.method.toLowerCase() === 'head') return null; // no body to check
  let body: { s?: unknown; errmsg?: unknown; error?: { code?: unknown; message?: unknown; requestId?: unknown } };
  try {
    body = JSON.parse(a.text) as typeof body;
  } catch {
    return `${where}: error body is not JSON: ${a.text.slice(0, 200)}`;
  }
  const e = body.error;
  if (!e || typeof e.code !== 'string' || !CODES.has(e.code)) return `${where}: no valid error.code: ${a.text.slice(0, 200)}`;
  if (typeof e.message !== 'string' || e.message === '') return `${where}: no error.message`;
  if (e.requestId !== a.headers['x-request-id']) return `${where}: error.requestId differs from X-Request-Id`;
  if (req.path.startsWith('/udf/') && (body.s !== 'error' || typeof body.errmsg !== 'string')) return `${where}: /udf error without s/errmsg`;
  if (a.status === 405 && !a.headers.allow) return `${where}: 405 without Allow`;
  // The contract's challenge is for API keys; the dashboard's cookie session is another matter.
  if (a.status === 401 && !req.path.startsWith('/dashboard/') && !a.headers['www-authenticate']) return `${where}: 401 without WWW-Authenticate`;
  if (a.status === 429 && !a.headers['retry-after']) return `${where}: 429 without Retry-After`;
  return null;
}

/** Fails the test with every violation found, each on a line. */
export function expectNoViolations(found: string[]): void {
  expect(found.slice(0, 30).join('\n')).toBe('');
}

/** Sends raw request bytes on a fresh socket and parses the one answer (Connection: close). */
export function rawExchange(w: World, request: Buffer, timeoutMs = 10_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(w.base.port, w.base.host);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer in time')), timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, split).toString('latin1').split('\r\n');
      const headers: http.IncomingHttpHeaders = {};
      for (const line of head.slice(1)) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      let body = all.subarray(split + 4);
      if (headers['transfer-encoding'] === 'chunked') {
        const parts: Buffer[] = [];
        for (let i = 0; ;) {
          const eol = body.indexOf('\r\n', i);
          const size = parseInt(body.subarray(i, eol).toString('latin1'), 16);
          if (!size) break;
          parts.push(body.subarray(eol + 2, eol + 2 + size));
          i = eol + 2 + size + 2;
        }
        body = Buffer.concat(parts);
      }
      resolve({ status: Number(head[0]!.slice(9, 12)), headers, body, text: body.toString('utf8') });
    });
    socket.write(request);
  });
}
