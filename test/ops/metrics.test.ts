/**
 * /metrics: Prometheus text from a registry of the app's own (apps never share counters),
 * requests by route pattern and status with latency, 429s, ingest counts, webhook deliveries,
 * store size. No key needed, counted by the limiter like any route, and no tenant or key in it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { aMarket, aToken, aTrade, anAddress, ndjson, withMarket } from '../helpers/builders.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { testEngine } from '../helpers/pg-test-store.js';
import { loadDemo, removeDemo } from '../../src/services/demo.js';

const apps: TestApp[] = [];
const app = (env: Record<string, string> = {}) => {
  const t = makeTestApp({ env });
  apps.push(t);
  return t;
};
afterEach(() => {
  for (const t of apps.splice(0)) t.close();
});

/** Parses Prometheus text into `name{labels}` -> value, checking every line's form. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (-?(?:[0-9.e+-]+|Inf|NaN|Nan))$/);
    expect(m, `not Prometheus text: ${line}`).not.toBeNull();
    out.set(m![1]! + (m![2] ?? ''), Number(m![3]));
  }
  return out;
}

/** The value of `name` for the series whose labels include all of `labels`, summed. */
function value(metrics: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let found = false;
  for (const [key, v] of metrics) {
    const brace = key.indexOf('{');
    if ((brace === -1 ? key : key.slice(0, brace)) !== name) continue;
    if (Object.entries(labels).every(([k, l]) => key.includes(`${k}="${l}"`))) {
      sum += v;
      found = true;
    }
  }
  return found ? sum : NaN;
}

async function scrape(t: TestApp): Promise<Map<string, number>> {
  return parse(await t.services.metrics.scrape());
}

describe('/metrics', () => {
  it('answers Prometheus text without a key, with process metrics, never cached', async () => {
    const t = app();
    const res = await t.http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const m = parse(res.text);
    expect(value(m, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(value(m, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts requests by route pattern and status, and times them', async () => {
    const t = app();
    const token = anAddress('tok');
    await t.http.get('/udf/time');
    await t.http.get('/udf/time');
    await t.http.get('/udf/history?symbol=x&resolution=1&to=1e3');
    await t.http.get(`/v1/token/${token}/overview`);
    await t.http.get(`/v1/token/${anAddress('tok')}/overview`);
    await t.http.get('/no/such/route');
    await t.http.head('/udf/time');
    const m = await scrape(t);
    expect(value(m, 'http_requests_total', { method: 'GET', route: '/udf/time', status: '200' })).toBe(2);
    expect(value(m, 'http_requests_total', { method: 'HEAD', route: '/udf/time', status: '200' })).toBe(1);
    expect(value(m, 'http_requests_total', { route: '/udf/history', status: '400' })).toBe(1);
    // The pattern, not the address: label values stay a small fixed set.
    expect(value(m, 'http_requests_total', { route: '/v1/token/:address/overview', status: '404' })).toBe(2);
    expect([...m.keys()].some((k) => k.includes(token))).toBe(false);
    expect(value(m, 'http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(value(m, 'http_request_duration_seconds_count', { method: 'GET', route: '/udf/time' })).toBe(2);
    expect(value(m, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/udf/time', le: '+Inf' })).toBe(2);
    expect(value(m, 'http_request_duration_seconds_sum', { method: 'GET', route: '/udf/time' })).toBeGreaterThan(0);
  });

  it('counts 429s, labels requests refused before routing with their route, and is rate-limited itself', async () => {
    const t = app({ RATE_LIMIT_ANON: '3/60' });
    for (let i = 0; i < 3; i++) expect((await t.http.get('/udf/time')).status).toBe(200);
    const refused = await t.http.get('/udf/time');
    expect(refused.status).toBe(429);
    const metrics = await t.http.get('/metrics');
    expect(metrics.status).toBe(429);
    expect(metrics.headers['retry-after']).toBeDefined();
    const m = await scrape(t);
    expect(value(m, 'http_rate_limited_total', { caller: 'anonymous' })).toBe(2);
    expect(value(m, 'http_requests_total', { route: '/udf/time', status: '429' })).toBe(1);
    expect(value(m, 'http_requests_total', { route: '/metrics', status: '429' })).toBe(1);
  });

  it('labels a request with an invalid key (401 before routing) with its route', async () => {
    const t = app();
    const res = await t.http.get('/v1/me').set('x-api-key', 'svc_live_' + 'x'.repeat(40));
    expect(res.status).toBe(401);
    const m = await scrape(t);
    expect(value(m, 'http_requests_total', { route: '/v1/me', status: '401' })).toBe(1);
  });

  it('counts ingested records by source and outcome, and the trades now in the store', async () => {
    const t = app();
    const { secret } = t.makeKey({ scopes: ['read', 'ingest'] });
    const token = aToken();
    const market = aMarket(token.address);
    const trades = [1, 2, 3].map((i) => aTrade(token.address, { market: market.address, blockTime: 1_699_999_000 + i }));
    const body = ndjson([token, market, ...trades]);
    const post = () => t.http.post('/v1/ingest').set('x-api-key', secret).set('Content-Type', 'application/x-ndjson').send(body);
    expect((await post()).body).toEqual({ accepted: 5, duplicates: 0 });
    expect((await post()).body).toEqual({ accepted: 2, duplicates: 3 });
    const m = await scrape(t);
    expect(value(m, 'ingest_batches_total', { source: 'http' })).toBe(2);
    expect(value(m, 'ingest_records_total', { source: 'http', outcome: 'accepted' })).toBe(7);
    expect(value(m, 'ingest_records_total', { source: 'http', outcome: 'duplicate' })).toBe(3);
    expect(value(m, 'ingest_trades_inserted_total')).toBe(3);
    expect(value(m, 'store_trades')).toBe(3);
    expect(value(m, 'store_tokens')).toBe(1);
    // A refused batch counts as a 400, not as ingested records.
    const bad = await t.http.post('/v1/ingest').set('x-api-key', secret).set('Content-Type', 'application/x-ndjson').send('{"type":"trade"}\n');
    expect(bad.status).toBe(400);
    const after = await scrape(t);
    expect(value(after, 'ingest_batches_total', { source: 'http' })).toBe(2);
    expect(value(after, 'http_requests_total', { route: '/v1/ingest', status: '400' })).toBe(1);
  });

  it('counts the trades the store holds after demo --remove deleted the demo ones, not the highest trade id', async () => {
    const t = app();
    await t.services.repos.stats.answers(); // the PostgreSQL test database is ready
    const until = 1_700_000_000;
    t.clock.set(until * 1000);
    const loaded = await loadDemo(t.services, { tokens: 2, days: 1, seed: 5, until, tradesPerTokenPerDay: 40 });
    const token = aToken();
    const market = aMarket(token.address);
    await t.ingest([token, market, ...[1, 2, 3].map((i) => aTrade(token.address, { market: market.address, blockTime: until + i }))]);
    expect(value(await scrape(t), 'store_trades')).toBe(loaded.trades + 3);
    const removed = await removeDemo({ store: t.store, repos: t.services.repos });
    expect(removed.trades).toBe(loaded.trades);
    // The three real trades were numbered after the demo's: max(id) would still say loaded.trades + 3.
    expect(value(await scrape(t), 'store_trades')).toBe(3);
  });

  it('counts trades inserted by in-process ingest of any source (the ingest hook)', async () => {
    const t = app();
    await t.http.get('/metrics'); // the app is built; its hook is in place
    const token = aToken();
    // Awaited: the scrape below reads the registry, not through the store's queue (STORE=postgres).
    await t.ingest([...withMarket(token), aTrade(token.address), aTrade(token.address)]);
    const m = await scrape(t);
    expect(value(m, 'ingest_trades_inserted_total')).toBe(2);
  });

  it("reports the store size as SQLite's page_count * page_size, or PostgreSQL's pg_database_size()", async () => {
    const t = app();
    const size = async () => {
      if (testEngine() === 'postgres') return (await t.sql<{ n: number }>('SELECT pg_database_size(current_database()) AS n'))[0]!.n;
      const [pages] = await t.sql<{ page_count: number }>('PRAGMA page_count');
      const [page] = await t.sql<{ page_size: number }>('PRAGMA page_size');
      return pages!.page_count * page!.page_size;
    };
    // A fresh PostgreSQL database may still grow on its own (the server's background work on the
    // new tables): compare a scrape with a size read the same before and after it.
    let stable: { bytes: number; m: Map<string, number> } | undefined;
    for (let i = 0; i < 10 && stable === undefined; i++) {
      const bytes = await size();
      const m = await scrape(t);
      if ((await size()) === bytes) stable = { bytes, m };
    }
    expect(stable).toBeDefined();
    expect(value(stable!.m, 'store_size_bytes')).toBe(stable!.bytes);
    expect(value(stable!.m, 'store_wal_bytes')).toBe(0);
  });

  it('exposes webhook delivery counters for the webhook worker to call', async () => {
    const t = app();
    const metrics = t.services.metrics;
    metrics.webhookDelivery('delivered', 0.05);
    metrics.webhookDelivery('retry', 5);
    metrics.webhookDelivery('retry');
    metrics.webhookDelivery('failed');
    const m = await scrape(t);
    expect(value(m, 'webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(value(m, 'webhook_deliveries_total', { outcome: 'retry' })).toBe(2);
    expect(value(m, 'webhook_deliveries_total', { outcome: 'failed' })).toBe(1);
    expect(value(m, 'webhook_deliveries_total', { outcome: 'cancelled' })).toBe(0);
    expect(value(m, 'webhook_delivery_duration_seconds_count')).toBe(2);
    expect(value(m, 'webhook_deliveries_pending')).toBe(0);
  });

  it('keeps one registry per app: two apps never see each other’s counts', async () => {
    const a = app();
    const b = app();
    await a.http.get('/udf/time');
    await a.http.get('/udf/time');
    await b.http.get('/udf/time');
    expect(value(await scrape(a), 'http_requests_total', { route: '/udf/time' })).toBe(2);
    expect(value(await scrape(b), 'http_requests_total', { route: '/udf/time' })).toBe(1);
    expect(a.services.metrics).not.toBe(b.services.metrics);
    expect(a.services.metrics.registry).not.toBe(b.services.metrics.registry);
  });

  it('never shows a tenant, a key or an address', async () => {
    const t = app();
    const { secret, tenantId, keyId } = t.makeKey();
    await t.http.get('/v1/me').set('x-api-key', secret);
    await t.http.get(`/udf/history?symbol=x&resolution=1&to=10&key=${secret}`);
    const text = (await t.http.get('/metrics').set('x-api-key', secret)).text;
    expect(value(parse(text), 'http_requests_total', { route: '/v1/me', status: '200' })).toBe(1);
    for (const s of [secret, secret.slice(9, 25), tenantId, keyId]) expect(text).not.toContain(s);
  });
});
