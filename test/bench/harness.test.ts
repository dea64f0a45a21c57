/**
 * The benchmark harness's pieces on tiny data sets: data planning and generation are
 * deterministic and give the hot token half the trades; the bare insert loop and the real ingest
 * path store the same rows; the baseline is a bare Koa app serving precompressed copies; the
 * target checks and the table. The full benchmark (`npm run bench`) is not part of the tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/sqlite/db.js';
import { parseBenchArgs } from '../../bench/args.js';
import { BROWSER_ACCEPT_ENCODING, baselineApp, baselineBody, headerBytes } from '../../bench/baseline.js';
import { buildStore, countTrades, demoOptions, ensureStore, hotToken, planData, type DataSpec } from '../../bench/data.js';
import { bareInsert, measureIngest, splitRecords } from '../../bench/ingest-rate.js';
import { quantile, summarize, type LoadResult, type Sample } from '../../bench/load.js';
import { atLeast, atMost, deepVsFirst, failures, formatTable, judgeRoute, reportRows, type PassResult } from '../../bench/report.js';
import { benchRoutes, routeGroups } from '../../bench/routes.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec: DataSpec = { trades: 1500, tokens: 5, days: 2, seed: 9, anchor: 1_750_000_000 };

const tradeRows = (path: string) => {
  const store = openStore(path, { migrate: false });
  try {
    return store.db.prepare('SELECT token_id, block_time, signature, price_usd, volume_usd, wallet FROM trades ORDER BY id').raw().all();
  } finally {
    store.close();
  }
};

describe('data set', () => {
  it('plans the same parameters for the same spec, with at least the trades asked and half of them on the hot token', () => {
    const a = planData(spec);
    expect(planData(spec)).toEqual(a);
    const counts = countTrades(demoOptions(a));
    expect(counts.total).toBeGreaterThanOrEqual(spec.trades);
    expect(counts.total).toBeLessThan(spec.trades * 1.02);
    expect(counts.hot / counts.total).toBeGreaterThan(0.49);
    expect(counts.hot / counts.total).toBeLessThan(0.51);
  });

  it('builds identical stores from the same plan through the ingest path', () => {
    const plan = planData(spec);
    const s1 = buildStore(join(dir, 'a.db'), plan);
    const s2 = buildStore(join(dir, 'b.db'), plan);
    expect(s1).toEqual(s2);
    expect(s1.hot).toBe(hotToken(plan).address);
    expect(s1.trades).toBe(countTrades(demoOptions(plan)).total);
    expect(s1.hotTrades24h).toBeGreaterThan(0);
    expect(tradeRows(join(dir, 'a.db'))).toEqual(tradeRows(join(dir, 'b.db')));
  });

  it('reuses a cached store for the same plan and rebuilds it on request', () => {
    const plan = planData({ ...spec, trades: 1000 });
    const cache = join(dir, 'cache');
    const first = ensureStore(cache, plan);
    expect(first.generatedMs).not.toBeNull();
    const again = ensureStore(cache, plan);
    expect(again.generatedMs).toBeNull();
    expect(again.path).toBe(first.path);
    expect(again.stats.trades).toBe(first.stats.trades);
    expect(ensureStore(cache, plan, { regenerate: true }).generatedMs).not.toBeNull();
  });
});

describe('ingest measurement', () => {
  const opts = demoOptions(planData({ ...spec, trades: 1200 }));

  it('the bare loop inserts every trade of the set, in time order', () => {
    const set = splitRecords(opts);
    expect(set.trades.length).toBeGreaterThanOrEqual(1200);
    for (let i = 1; i < set.trades.length; i++) expect(set.trades[i]!.blockTime).toBeGreaterThanOrEqual(set.trades[i - 1]!.blockTime);
    const bare = bareInsert(join(dir, 'bare.db'), set, 500);
    expect(bare.rows).toBe(set.trades.length);
  });

  it('measures both sides on the same rows and writes events for the registered hot token', async () => {
    const r = await measureIngest(dir, opts, 500);
    expect(r.trades).toBe(splitRecords(opts).trades.length);
    expect(r.realPerSecond).toBeGreaterThan(0);
    expect(r.barePerSecond).toBeGreaterThan(0);
    expect(r.ratio).toBeCloseTo(r.realPerSecond / r.barePerSecond, 10);
    expect(r.registered).toBe(true);
    expect(r.events).toBeGreaterThan(0);
  });
});

describe('baseline: the bare Koa ceiling', () => {
  it('answers the precompressed bytes of a copy of an answer by Accept-Encoding, with an ETag per coding and padded headers', async () => {
    const body = { rows: Array.from({ length: 200 }, (_, i) => ({ i, price: i * 1.5 })) };
    const json = JSON.stringify(body);
    const bodies = new Map([
      ['big', baselineBody(json, 600)],
      ['small', baselineBody('{"s":"ok"}', 0)],
    ]);
    const http = request(baselineApp(bodies).callback());
    const br = await http.get('/big').set('accept-encoding', BROWSER_ACCEPT_ENCODING);
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.body).toEqual(body);
    expect(Number(br.headers['content-length'])).toBe(bodies.get('big')!.br!.length);
    const gz = await http.get('/big').set('accept-encoding', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body).toEqual(body);
    expect(gz.headers.etag).not.toBe(br.headers.etag);
    expect((await http.get('/big').set('accept-encoding', 'gzip').set('if-none-match', gz.headers.etag!)).status).toBe(304);
    const pairs = Object.entries(br.headers).map(([k, v]) => [k, String(v)] as [string, string]);
    expect(Math.abs(headerBytes(pairs) - 600)).toBeLessThan(60);
    const small = await http.get('/small').set('accept-encoding', BROWSER_ACCEPT_ENCODING);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body).toEqual({ s: 'ok' });
    expect((await http.get('/other')).status).toBe(404);
  });
});

const load = (rps: number, extra: Partial<LoadResult> = {}): LoadResult => ({
  rps,
  p50: 1,
  p99: 5,
  requests: rps * 5,
  bytesPerAnswer: 1000,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  statusCodes: { '200': rps * 5 },
  ...extra,
});

describe('targets and table', () => {
  it('compares against targets, unknown values meeting nothing', () => {
    expect(atLeast(0.7, 0.7)).toBe(true);
    expect(atLeast(0.69, 0.7)).toBe(false);
    expect(atLeast(null, 0.7)).toBeNull();
    expect(atLeast(0.5, null)).toBeNull();
    expect(atMost(150, 150)).toBe(true);
    expect(atMost(150.1, 150)).toBe(false);
    expect(atMost(NaN, 150)).toBeNull();
  });

  it('a route at its target meets it; one with non-2xx answers never does, however fast', () => {
    const ok = judgeRoute('overview', '/x', load(500), load(1000), 0.5);
    expect(ok.ratio).toBe(0.5);
    expect(ok.meets).toBe(true);
    const broken = judgeRoute('overview', '/x', load(5000, { non2xx: 10, statusCodes: { '404': 10 } }), load(1000), 0.5);
    expect(broken.meets).toBe(false);
    expect(broken.problem).toContain('404: 10');
    expect(judgeRoute('holders', '/x', load(100), load(1000), null).meets).toBeNull();
  });

  it('checks the deep trades page against the first page', () => {
    const pass = (deep: number): PassResult => ({
      name: 'cached',
      routes: [judgeRoute('trades first page', '/a', load(1000), load(1000), 0.7), judgeRoute('trades deep page', '/b', load(deep), load(1000), 0.7)],
      stream: null,
      deepCursor: { depth: 10, pages: 1, error: null },
      otherCores: null,
      store: 'sqlite',
      databaseCores: null,
    });
    expect(deepVsFirst(pass(900)).meets).toBe(true);
    expect(deepVsFirst(pass(899)).meets).toBe(false);
  });

  it('prints one aligned table with a row per route and per figure, marking each miss', () => {
    const pass: PassResult = {
      name: 'cached',
      routes: [judgeRoute('history 1', '/h', load(300), load(1000), 0.7), judgeRoute('overview', '/o', load(900), load(1000), 0.5)],
      stream: {
        posts: 10,
        accepted: 50,
        duplicates: 0,
        failed: 0,
        statusCodes: { '200': 10 },
        meanMs: 2,
        maxMs: 4,
        seconds: 1,
        rate: 50,
        tokensPerPost: 1,
        firstError: null,
      },
      deepCursor: { depth: 0, pages: 0, error: 'not walked' },
      otherCores: 1.5,
      store: 'sqlite',
      databaseCores: null,
    };
    const rows = reportRows({
      passes: [pass],
      ingest: { trades: 100, batch: 10, realMs: 10, bareMs: 2, realPerSecond: 10_000, barePerSecond: 50_000, ratio: 0.2, events: 5, registered: true },
      startup: { runs: [400, 500, 450], medianMs: 450, maxMs: 500, error: null },
      postgresStartup: null,
      limiter: { buckets: 1_000_000, bytesPerBucket: 120, gc: true },
      errors: {},
    });
    expect(rows.map((r) => r.figure)).toEqual([
      'cached: history 1',
      'cached: overview',
      'cached: deep vs first trades page',
      'cached: live ingest stream',
      'cached: CPU of other processes',
      'ingest, real path vs bare inserts',
      'start-up to first /healthz 200',
      'limiter bytes per bucket',
    ]);
    expect(failures(rows).map((r) => r.figure)).toEqual(['cached: history 1', 'cached: deep vs first trades page', 'ingest, real path vs bare inserts']);
    const lines = formatTable(rows).split('\n');
    expect(lines).toHaveLength(rows.length + 2);
    const metsAt = lines[0]!.indexOf('meets');
    expect(lines[2]!.slice(metsAt, metsAt + 2)).toBe('NO');
    expect(lines[3]!.slice(metsAt, metsAt + 3)).toBe('yes');
    expect(lines.find((l) => l.startsWith('start-up'))).toContain('450 ms');
    expect(lines.find((l) => l.startsWith('cached: CPU'))).toContain('1.50 cores');
  });
});

describe('load results', () => {
  it('merges rounds: answers over total seconds, exact percentiles over every answer, statuses summed', () => {
    const sample = (seconds: number, latencies: number[], codes: Record<string, number>): Sample => ({
      seconds,
      latencies,
      bytes: 100 * (codes['200'] ?? 0),
      ok: codes['200'] ?? 0,
      statusCodes: codes,
      errors: 0,
      timeouts: 0,
    });
    const r = summarize([sample(2, [1, 2, 3, 4], { '200': 4 }), sample(2, [10, 20, 30, 40], { '200': 3, '404': 1 })]);
    expect(r.rps).toBe(2);
    expect(r.requests).toBe(8);
    expect(r.non2xx).toBe(1);
    expect(r.statusCodes).toEqual({ '200': 7, '404': 1 });
    expect(r.bytesPerAnswer).toBe(100);
    expect(r.p50).toBe(10);
    expect(r.p99).toBe(40);
    expect(quantile([], 0.5)).toBeNaN();
    expect(quantile([5], 0.99)).toBe(5);
  });
});

describe('options and routes', () => {
  it('defaults to a million trades and accepts smaller and larger sets', () => {
    expect(parseBenchArgs([]).trades).toBe(1_000_000);
    expect(parseBenchArgs(['--trades', '100000']).trades).toBe(100_000);
    expect(parseBenchArgs(['--trades', '3000000']).trades).toBe(3_000_000);
    expect(parseBenchArgs(['--trades', '50000']).ingestTrades).toBe(50_000);
    for (const bad of [['--trades', '1e6'], ['--trades', '-1'], ['--pass', 'warm'], ['--nope']]) expect(() => parseBenchArgs(bad)).toThrow();
  });

  it("drives history at 1, 15 and 1D with countback 300, the adapter's countback-2 poll, and the deep page only when a cursor was found", () => {
    const routes = benchRoutes('HOT', 1_750_000_000, 'CUR');
    const param = (r: { path: string }, name: string) => new URL(r.path, 'http://x').searchParams.get(name);
    const history = routes.filter((r) => r.id.startsWith('history'));
    expect(history.map((r) => param(r, 'resolution'))).toEqual(['1', '15', '1D', '1']);
    expect(history.map((r) => param(r, 'countback'))).toEqual(['300', '300', '300', '2']);
    expect(routes.find((r) => r.id === 'trades deep page')?.path).toBe('/v1/token/HOT/trades?cursor=CUR');
    expect(benchRoutes('HOT', 1_750_000_000, null).some((r) => r.id === 'trades deep page')).toBe(false);
    // The two trades pages are measured together, interleaved; every other route alone.
    const groups = routeGroups(routes).map((g) => g.map((r) => r.id));
    expect(groups).toContainEqual(['trades first page', 'trades deep page']);
    expect(groups.flat()).toEqual(routes.map((r) => r.id));
    expect(groups.filter((g) => g.length > 1)).toHaveLength(1);
    expect(routes.map((r) => r.id)).toEqual([
      'history 1',
      'history 15',
      'history 1D',
      'history poll',
      'trades first page',
      'trades deep page',
      'overview',
      'top traders 24h',
      'holders',
      'markets',
      'search',
      'trending',
    ]);
  });
});
