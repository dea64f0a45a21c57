/**
 * The program the typed-client test type-checks against the client that openapi-typescript
 * generates from /openapi.json (written next to it as api.d.ts), then runs against a live server.
 * It calls every route through the generated `paths` types and reads fields of each answer into
 * variables of the exact types the contract promises, so a body typed `unknown` (or a field of the
 * wrong type) fails to compile. Kept as a string: it is compiled in a temp directory, not here.
 */
export const CLIENT_PROGRAM = `
import type { paths } from './api';

type Method = 'get' | 'post' | 'delete';
type Content<R> = R extends { content: infer C } ? (C extends { 'application/json': infer J } ? J : C extends { 'text/plain': infer T } ? T : never) : never;
/** The body of the first success status of an operation. */
type Ok<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer S } ? Content<S> : R extends { 201: infer S } ? Content<S> : never
  : never;

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined) throw new Error(name + ' is not set');
  return v;
};
const base = env('BASE');
const key = env('KEY');

async function call<P extends keyof paths, M extends Method>(
  path: P, method: M, opts: { params?: Record<string, string>; query?: string; body?: string; type?: string } = {},
): Promise<Ok<P, M>> {
  const url = String(path).replace(/\\{(\\w+)\\}/g, (_m, name: string) => opts.params![name]!) + (opts.query ? '?' + opts.query : '');
  const headers: Record<string, string> = { 'x-api-key': key };
  if (opts.body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const res = await fetch(base + url, { method: method.toUpperCase(), headers, body: opts.body });
  if (res.status >= 300) throw new Error(method + ' ' + url + ': ' + res.status + ' ' + (await res.text()));
  const text = await res.text();
  return ((res.headers.get('content-type') ?? '').startsWith('text/plain') ? text : JSON.parse(text)) as Ok<P, M>;
}

const A = env('TOKEN');
const now = Number(env('NOW'));
const out: Record<string, unknown> = {};

const overview = await call('/v1/token/{address}/overview', 'get', { params: { address: A } });
const symbol: string = overview.symbol;
const price: number | null = overview.priceUsd;
const day: number = overview.windows['24h'].trades;
out.overview = [symbol, price, day];

const trades = await call('/v1/token/{address}/trades', 'get', { params: { address: A }, query: 'limit=2' });
const side: 'buy' | 'sell' = trades.trades[0]!.side;
const next: string | null = trades.nextCursor;
out.trades = [trades.trades.length, side, next !== null];

const candles = await call('/v1/token/{address}/candles', 'get', { params: { address: A }, query: 'resolution=60&from=' + (now - 4 * 86400) + '&to=' + now });
const close: number = candles.candles[0]!.c;
out.candles = [candles.resolution, candles.candles.length, close];

const traders = await call('/v1/token/{address}/top-traders', 'get', { params: { address: A } });
const net: number = traders.traders[0]!.netUsd;
out.traders = [traders.window, net];

const holders = await call('/v1/token/{address}/holders', 'get', { params: { address: A } });
const value: number | null = holders.holders[0]!.valueUsd;
const pct: number | null = holders.holders[0]!.percent;
out.holders = [holders.totalHolders, value, pct];

const markets = await call('/v1/token/{address}/markets', 'get', { params: { address: A } });
const quote: string = markets.markets[0]!.quoteSymbol;
out.markets = [quote];

const lists: number[] = [];
for (const p of ['/v1/market/trending', '/v1/market/gainers', '/v1/market/losers', '/v1/market/new'] as const) {
  const list = await call(p, 'get');
  const change: number | null = list.tokens[0]?.priceChangePct ?? null;
  const win: '1h' | '6h' | '24h' | null = list.window;
  lists.push(list.tokens.length + (change === null ? 0 : 0) + (win === null ? 0 : 0));
}
out.lists = lists;

const search = await call('/v1/search', 'get', { query: 'q=' + symbol });
const matched: 'address' | 'symbol' | 'symbolPrefix' | 'name' = search.results[0]!.matchedBy;
out.search = [matched];

const prices = await call('/v1/prices', 'get', { query: 'addresses=' + A });
const current: number | null = prices.prices[A]?.priceUsd ?? null;
out.prices = [current];

const at = await call('/v1/prices/at', 'get', { query: 'addresses=' + A + '&time=' + now });
const tradeId: number | undefined = at.prices[A]?.tradeId;
out.pricesAt = [at.time, typeof tradeId];

const chains = await call('/v1/chains', 'get');
const isDefault: boolean = chains.chains[0]!.default;
const lag: number | null = chains.chains[0]!.indexer?.lag ?? null;
// Present only when the deployment serves several chains: optional in the contract.
const chainOf: string | undefined = search.results[0]!.chain;
out.chains = [chains.chains[0]!.chain, isDefault, chains.chains[0]!.trades, lag, chainOf ?? null];

const me = await call('/v1/me', 'get');
const rpm: number = me.plan.requestsPerMinute;
out.me = [rpm];

const keys = await call('/v1/keys', 'get');
const status: 'active' | 'expiring' | 'revoked' | 'expired' = keys.keys[0]!.status;
const made = await call('/v1/keys', 'post', { body: JSON.stringify({ name: 'from the typed client' }) });
const secret: string = made.secret;
const rotated = await call('/v1/keys/{id}/rotate', 'post', { params: { id: made.key.id }, body: JSON.stringify({ graceSeconds: 60 }) });
const previousExpiry: number | null = rotated.previous.expiresAt;
const revoked = await call('/v1/keys/{id}', 'delete', { params: { id: rotated.key.id } });
const revokedAt: number | null = revoked.key.revokedAt;
out.keys = [status, secret.startsWith('svc_live_'), previousExpiry !== null, revokedAt !== null];

const registered = await call('/v1/tokens/register', 'post', { body: JSON.stringify({ address: A, webhookUrl: 'http://127.0.0.1:9/hook' }) });
const webhookSecret: string | undefined = registered.webhookSecret;
const subs = await call('/v1/tokens/registered', 'get');
const hook: string | null = subs.subscriptions[0]!.webhookUrl;
const ingested = await call('/v1/ingest', 'post', { type: 'application/x-ndjson', body: env('NDJSON') });
const accepted: number = ingested.accepted;
const events = await call('/v1/events', 'get');
const eventTrades: number = events.events[0]!.data.trades.length;
const cursor: string = events.nextCursor;
const removed = await call('/v1/tokens/registered/{address}', 'delete', { params: { address: A } });
out.subscriptions = [typeof webhookSecret, hook, accepted, eventTrades, cursor.length > 0, removed.subscription.address === A];

const config = await call('/udf/config', 'get');
const resolutions: string[] = config.supported_resolutions;
const info = await call('/udf/symbols', 'get', { query: 'symbol=' + symbol });
const scale: number = info.pricescale;
const found = await call('/udf/search', 'get', { query: 'query=' + symbol });
const fullName: string = found[0]!.full_name;
const time: string = await call('/udf/time', 'get');
const history = await call('/udf/history', 'get', { query: 'symbol=' + A + '&resolution=60&from=' + (now - 4 * 86400) + '&to=' + now });
const bars: number = history.s === 'ok' ? history.t.length : 0;
const quotes = await call('/udf/quotes', 'get', { query: 'symbols=' + symbol });
const item = quotes.d[0]!;
const last: number | null = item.s === 'ok' ? item.v.lp : null;
const marks = await call('/udf/marks', 'get', { query: 'symbol=' + A + '&from=0&to=' + now + '&resolution=60' });
const labels: ('B' | 'S')[] = marks.label;
out.udf = [resolutions.length, scale > 0, fullName, Number(time) > 0, bars > 0, last, labels.length];

console.log(JSON.stringify(out));
`;
