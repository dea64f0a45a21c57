/**
 * A world for the typed-contract tests: an app with tokens (one traded, one not), markets, trades,
 * holders, a tenant with a key of every scope, a subscription with a webhook and its events, and
 * the calls that reach every documented route with real answers (several shapes where a route has
 * more than one: a page with and without a next cursor, history with bars and without, a quote
 * for an unknown name, a registration that is new and one that already existed).
 */
import type { Response } from 'supertest';
import { SCOPES } from '../../src/services/accounts.js';
import { aHolder, aToken, aTrade, homeMarket, ndjson } from '../helpers/builders.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

export type Call = {
  /** The route as declared (`/v1/token/:address/trades`). */
  route: string;
  method: 'get' | 'post' | 'delete';
  /** A function where the URL depends on an earlier answer. */
  url: string | (() => string);
  key?: string;
  body?: { type: string; text: string };
};

/** `wallet`: the wallet of one of the traded token's trades (its marks). */
export type ContractWorld = { t: TestApp; traded: string; untraded: string; symbol: string; wallet: string; secret: string; keyId: string };

export async function contractWorld(): Promise<ContractWorld> {
  const t = makeTestApp({ env: { RATE_LIMIT_ANON: '1000000/60' } });
  const now = t.clock.seconds();
  const a = aToken({ symbol: 'TYPED', name: 'Typed Token' });
  const b = aToken({ symbol: 'QUIET', name: 'Quiet Token', totalSupply: null, circulatingSupply: null, logoUri: null });
  // The market the calls' fresh trades name too (aTrade's default), with aMarket's liquidity.
  const m = homeMarket(a.address, { liquidityUsd: 10_000 });
  const trades = Array.from({ length: 40 }, (_, i) =>
    aTrade(a.address, {
      market: m.address,
      blockTime: now - 40 * 3600 + i * 3600,
      priceUsd: 1 + i / 20,
      side: i % 3 === 0 ? 'sell' : 'buy',
      volumeUsd: 10 + i,
    }),
  );
  t.ingest([a, b, m, ...trades, aHolder(a.address), aHolder(a.address, { amount: 250 }), aHolder(b.address)]);
  const tenantId = (await t.services.accounts.createTenant({ name: 'Contract', plan: 'pro' })).id;
  const key = t.makeKey({ tenantId, scopes: [...SCOPES] });
  return { t, traded: a.address, untraded: b.address, symbol: a.symbol, wallet: trades[0]!.wallet, secret: key.secret, keyId: key.keyId };
}

/** The calls, in an order that makes every answer non-trivial (events exist before they are read). */
export function contractCalls(w: ContractWorld, later: { newKeyId: () => string }): Call[] {
  const now = w.t.clock.seconds();
  const A = w.traded;
  const B = w.untraded;
  const k = w.secret;
  const unknown = 'So11111111111111111111111111111111111111112';
  const json = (v: unknown) => ({ type: 'application/json', text: JSON.stringify(v) });
  const fresh = aTrade(A, { blockTime: now - 60, priceUsd: 3 });
  return [
    { route: '/v1/token/:address/overview', method: 'get', url: `/v1/token/${A}/overview` },
    { route: '/v1/token/:address/overview', method: 'get', url: `/v1/token/${B}/overview` },
    { route: '/v1/token/:address/trades', method: 'get', url: `/v1/token/${A}/trades?limit=2` },
    { route: '/v1/token/:address/trades', method: 'get', url: `/v1/token/${A}/trades?after=${now - 86400}` },
    { route: '/v1/token/:address/candles', method: 'get', url: `/v1/token/${A}/candles?resolution=60&from=${now - 4 * 86400}&to=${now}` },
    { route: '/v1/token/:address/top-traders', method: 'get', url: `/v1/token/${A}/top-traders?window=7d` },
    { route: '/v1/token/:address/holders', method: 'get', url: `/v1/token/${A}/holders` },
    { route: '/v1/token/:address/holders', method: 'get', url: `/v1/token/${B}/holders` },
    { route: '/v1/token/:address/markets', method: 'get', url: `/v1/token/${A}/markets` },
    { route: '/v1/market/trending', method: 'get', url: '/v1/market/trending' },
    { route: '/v1/market/gainers', method: 'get', url: '/v1/market/gainers' },
    { route: '/v1/market/losers', method: 'get', url: '/v1/market/losers?window=24h&limit=5' },
    { route: '/v1/market/new', method: 'get', url: '/v1/market/new' },
    { route: '/v1/search', method: 'get', url: '/v1/search?q=typ' },
    { route: '/v1/chains', method: 'get', url: '/v1/chains' },
    { route: '/v1/prices', method: 'get', url: `/v1/prices?addresses=${A},${B},${unknown}` },
    { route: '/v1/prices/at', method: 'get', url: `/v1/prices/at?addresses=${A},${unknown}&time=${now - 86400}` },
    { route: '/v1/me', method: 'get', url: '/v1/me', key: k },
    { route: '/v1/keys', method: 'get', url: '/v1/keys', key: k },
    { route: '/v1/keys', method: 'post', url: '/v1/keys', key: k, body: json({ name: 'made by the contract test' }) },
    { route: '/v1/keys/:id/rotate', method: 'post', url: '', key: k, body: json({ graceSeconds: 300 }) },
    { route: '/v1/keys/:id', method: 'delete', url: '', key: k },
    { route: '/v1/tokens/register', method: 'post', url: '/v1/tokens/register', key: k, body: json({ address: A, webhookUrl: 'http://127.0.0.1:9/hook' }) },
    { route: '/v1/tokens/register', method: 'post', url: '/v1/tokens/register', key: k, body: json({ address: A }) },
    { route: '/v1/tokens/registered', method: 'get', url: '/v1/tokens/registered', key: k },
    { route: '/v1/ingest', method: 'post', url: '/v1/ingest', key: k, body: { type: 'application/x-ndjson', text: ndjson([fresh]) } },
    { route: '/v1/events', method: 'get', url: '/v1/events', key: k },
    { route: '/v1/tokens/registered/:address', method: 'delete', url: `/v1/tokens/registered/${A}`, key: k },
    { route: '/udf/config', method: 'get', url: '/udf/config' },
    { route: '/udf/symbols', method: 'get', url: `/udf/symbols?symbol=${w.symbol}` },
    { route: '/udf/search', method: 'get', url: '/udf/search?query=TY' },
    { route: '/udf/time', method: 'get', url: '/udf/time' },
    { route: '/udf/history', method: 'get', url: `/udf/history?symbol=${A}&resolution=60&from=${now - 4 * 86400}&to=${now}` },
    { route: '/udf/history', method: 'get', url: `/udf/history?symbol=${A}&resolution=60&from=${now + 3600}&to=${now + 7200}` },
    { route: '/udf/history', method: 'get', url: `/udf/history?symbol=${A}&resolution=60&from=1000&to=2000` },
    { route: '/udf/quotes', method: 'get', url: `/udf/quotes?symbols=${w.symbol},NOPE` },
    { route: '/udf/marks', method: 'get', url: `/udf/marks?symbol=${A}&from=${now - 4 * 86400}&to=${now}&resolution=60&wallet=${w.wallet}` },
    { route: '/udf/marks', method: 'get', url: `/udf/marks?symbol=${A}&from=${now - 4 * 86400}&to=${now}&resolution=60` },
  ].map((c) => {
    // Key routes act on a key made earlier in the run.
    if (c.route === '/v1/keys/:id/rotate') return { ...c, url: () => `/v1/keys/${later.newKeyId()}/rotate` };
    if (c.route === '/v1/keys/:id') return { ...c, url: () => `/v1/keys/${later.newKeyId()}` };
    return c;
  }) as Call[];
}

/** Sends a call through supertest. */
export function send(w: ContractWorld, c: Call): Promise<Response> {
  let req = w.t.http[c.method](typeof c.url === 'string' ? c.url : c.url());
  if (c.key) req = req.set('x-api-key', c.key);
  if (c.body) req = req.set('Content-Type', c.body.type).send(c.body.text);
  return req;
}
