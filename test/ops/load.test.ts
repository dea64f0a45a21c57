/**
 * Load on loopback: a few thousand requests over 100 concurrent connections, anonymous and keyed,
 * across the main read routes. No error but 429s, every answer carries correct RateLimit headers,
 * and the limiter is exact under concurrency: with the clock standing still, a bucket of N lets
 * exactly N requests through, answering RateLimit-Remaining N-1 ... 0 once each.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

const ANON_LIMIT = 1000;
const WINDOW = 60;
const FREE_LIMIT = 300; // the free plan's requests per minute (docs/api.md, Authentication and keys)

let t: TestApp;
let server: http.Server;
let port: number;
let token: string;

beforeAll(async () => {
  t = makeTestApp({ env: { RATE_LIMIT_ANON: `${ANON_LIMIT}/${WINDOW}` } });
  const tok = aToken({ symbol: 'LOAD' });
  const market = aMarket(tok.address);
  const now = t.clock.seconds();
  t.ingest([
    tok,
    market,
    ...Array.from({ length: 2000 }, (_, i) =>
      aTrade(tok.address, { market: market.address, blockTime: now - 86400 + i * 40, priceUsd: 1 + (i % 50) / 100, side: i % 2 ? 'buy' : 'sell' }),
    ),
  ]);
  token = tok.address;
  server = t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  t.close();
});

type Result = { status: number; headers: http.IncomingHttpHeaders } | { error: string };

/** Sends `paths` over `connections` keep-alive connections, `connections` requests in flight at a time. */
async function load(paths: string[], connections: number, headers: (i: number) => Record<string, string> = () => ({})): Promise<Result[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const results: Result[] = new Array(paths.length);
  let next = 0;
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: paths[i], agent, headers: headers(i) }, (res) => {
        res.resume();
        res.on('end', () => {
          results[i] = { status: res.statusCode ?? 0, headers: res.headers };
          resolve();
        });
        res.on('error', (e) => {
          results[i] = { error: e.message };
          resolve();
        });
      });
      req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
      req.on('error', (e) => {
        results[i] = { error: (e as NodeJS.ErrnoException).code ?? e.message };
        resolve();
      });
    });
  const worker = async () => {
    while (next < paths.length) await one(next++);
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
  return results;
}

const routes = () => [
  `/udf/history?symbol=${token}&resolution=5&countback=300&to=${t.clock.seconds()}`,
  `/v1/token/${token}/trades?limit=100`,
  `/v1/token/${token}/overview`,
  '/v1/search?q=LOA',
  '/udf/time',
  '/v1/market/trending',
  `/udf/quotes?symbols=${token}`,
];

/** Checks every answer is a 200 or a 429 with correct RateLimit headers; returns the remaining values of the 200s. */
function checkAnswers(results: Result[], limit: number): number[] {
  const problems: string[] = [];
  const remaining: number[] = [];
  for (const [i, r] of results.entries()) {
    if (!r) {
      problems.push(`${i}: no result`);
      continue;
    }
    if ('error' in r) {
      problems.push(`${i}: ${r.error}`);
      continue;
    }
    const h = r.headers;
    const rem = Number(h['ratelimit-remaining']);
    const reset = Number(h['ratelimit-reset']);
    if (h['ratelimit-limit'] !== String(limit) || h['ratelimit-policy'] !== `${limit};w=${WINDOW}`)
      problems.push(`${i}: limit/policy ${h['ratelimit-limit']} ${h['ratelimit-policy']}`);
    if (!Number.isInteger(rem) || rem < 0 || rem >= limit) problems.push(`${i}: remaining ${h['ratelimit-remaining']}`);
    // Reset: whole seconds, rounded up, until the bucket is full again (clock standing still).
    const consumed = r.status === 429 ? limit : limit - rem;
    if (reset !== Math.ceil((consumed * WINDOW) / limit - 1e-9)) problems.push(`${i}: reset ${reset} after ${consumed} of ${limit}`);
    if (r.status === 200) remaining.push(rem);
    else if (r.status === 429) {
      if (rem !== 0) problems.push(`${i}: 429 with remaining ${rem}`);
      const retry = Number(h['retry-after']);
      if (retry !== Math.max(1, Math.ceil(WINDOW / limit - 1e-9))) problems.push(`${i}: Retry-After ${h['retry-after']}`);
    } else problems.push(`${i}: status ${r.status}`);
  }
  expect(problems.slice(0, 20)).toEqual([]);
  return remaining;
}

describe('load over 100 concurrent connections', () => {
  it('anonymous: only 200s and 429s, and exactly the bucket size let through', async () => {
    const r = routes();
    const results = await load(
      Array.from({ length: 2500 }, (_, i) => r[i % r.length]!),
      100,
    );
    const remaining = checkAnswers(results, ANON_LIMIT);
    expect(remaining).toHaveLength(ANON_LIMIT);
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: ANON_LIMIT }, (_, i) => i));
    expect(results.filter((x) => 'status' in x && x.status === 429)).toHaveLength(2500 - ANON_LIMIT);
  }, 120_000);

  it('keyed: two keys of one tenant share one bucket under concurrent load', async () => {
    const a = t.makeKey({ plan: 'free' });
    const b = t.makeKey({ tenantId: a.tenantId });
    const r = routes();
    const results = await load(
      Array.from({ length: 1000 }, (_, i) => r[i % r.length]!),
      100,
      (i) => ({ 'x-api-key': i % 2 ? a.secret : b.secret }),
    );
    const remaining = checkAnswers(results, FREE_LIMIT);
    expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: FREE_LIMIT }, (_, i) => i));
  }, 120_000);
});
