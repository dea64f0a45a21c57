/**
 * The benchmark's broad ingest (`npm run bench -- --ingest broad|both`): its flags, the stream
 * trading every token in turn against a real app (each post a block over many tokens, every trade
 * accepted and stored), and the report's figures for it: the pass's own rows, the pairing with
 * PostgreSQL by ingest and the live-beside-broad table. The benchmark itself is not part of the tests.
 */
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/args.js';
import { demoOptions, planData } from '../../bench/data.js';
import { formatIngestComparison, ingestComparison } from '../../bench/ingest-compare.js';
import { startIngestStream, type StreamStats } from '../../bench/ingest-stream.js';
import type { LoadResult } from '../../bench/load.js';
import { failures, judgeRoute, reportRows, type PassResult } from '../../bench/report.js';
import { storeComparison } from '../../bench/store-compare.js';
import { demoRecords, demoTokens } from '../../src/domain/demo-data.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

const ANCHOR = 1_750_000_000;
let t: TestApp | undefined;
let server: Server | undefined;
afterEach(async () => {
  server?.close();
  server = undefined;
  await t?.close();
  t = undefined;
});

describe('--ingest and --broad-rate', () => {
  it('defaults to the live ingest alone at 200 trades/s broad, takes broad, and both as live then broad', () => {
    expect(parseBenchArgs([])).toMatchObject({ ingests: ['live'], broadRate: 200, ingestRate: 50 });
    expect(parseBenchArgs(['--ingest', 'live']).ingests).toEqual(['live']);
    expect(parseBenchArgs(['--ingest', 'broad']).ingests).toEqual(['broad']);
    expect(parseBenchArgs(['--ingest', 'both', '--broad-rate', '400'])).toMatchObject({ ingests: ['live', 'broad'], broadRate: 400 });
    expect(() => parseBenchArgs(['--ingest', 'wide'])).toThrow('--ingest must be live, broad or both');
    expect(() => parseBenchArgs(['--broad-rate', '0'])).toThrow('--broad-rate must be a whole number from 1 to 100000');
    expect(() => parseBenchArgs(['--broad-rate', '2.5'])).toThrow('--broad-rate must be a whole number from 1 to 100000');
  });
});

/** Trades per token address, in the store. */
async function tradesPerToken(app: TestApp): Promise<Map<string, number>> {
  const rows = await app.sql<{ address: string; n: number | string }>(
    'SELECT k.address AS address, count(*) AS n FROM trades t JOIN tokens k ON k.id = t.token_id GROUP BY k.address',
  );
  return new Map(rows.map((r) => [r.address, Number(r.n)]));
}

describe('the broad ingest stream', () => {
  it('trades every token in turn, each post a block over all of them, every trade accepted and stored', async () => {
    const plan = planData({ trades: 1000, tokens: 5, days: 2, seed: 3, anchor: ANCHOR });
    t = makeTestApp();
    t.clock.set(ANCHOR * 1000);
    await t.ingest([...demoRecords(demoOptions(plan))]);
    const { secret } = t.makeKey({ plan: 'enterprise', scopes: ['read', 'ingest'] });
    const tokens = demoTokens(demoOptions(plan));
    expect(tokens).toHaveLength(5);
    const before = await tradesPerToken(t);
    server = await new Promise<Server>((resolve) => {
      const s = t!.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const stream = startIngestStream({
      base,
      secret,
      tokens: tokens.map((k) => ({ address: k.address, markets: k.markets, wallets: k.wallets, startPrice: k.price })),
      serverNow: () => t!.clock.seconds(),
      // 10 trades a post: each post holds two trades of each of the five tokens.
      tradesPerSecond: 200,
      intervalMs: 50,
      label: 'test-broad',
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    const stats = await stream.stop();
    expect(stats.failed).toBe(0);
    expect(stats.posts).toBeGreaterThan(0);
    expect(stats.statusCodes).toEqual({ '200': stats.posts });
    expect(stats.duplicates).toBe(0);
    expect(stats.tokensPerPost).toBe(5);
    await t.settled();
    const after = await tradesPerToken(t);
    // Trade j of the stream is of token j mod 5: the first tokens get one more when the total is not a multiple.
    const added = tokens.map((k) => (after.get(k.address) ?? 0) - (before.get(k.address) ?? 0));
    expect(added).toEqual(tokens.map((_, k) => Math.ceil((stats.accepted - k) / 5)));
    expect(added.reduce((a, b) => a + b, 0)).toBe(stats.accepted);
  }, 30_000);

  it('trades the one token it is given, as the live ingest does', async () => {
    const plan = planData({ trades: 1000, tokens: 3, days: 2, seed: 4, anchor: ANCHOR });
    t = makeTestApp();
    t.clock.set(ANCHOR * 1000);
    await t.ingest([...demoRecords(demoOptions(plan))]);
    const { secret } = t.makeKey({ plan: 'enterprise', scopes: ['read', 'ingest'] });
    const [hot, ...others] = demoTokens(demoOptions(plan));
    const before = await tradesPerToken(t);
    server = await new Promise<Server>((resolve) => {
      const s = t!.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const stream = startIngestStream({
      base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      secret,
      tokens: [{ address: hot!.address, markets: hot!.markets, wallets: hot!.wallets, startPrice: hot!.price }],
      serverNow: () => t!.clock.seconds(),
      tradesPerSecond: 100,
      intervalMs: 50,
      label: 'test-live',
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const stats = await stream.stop();
    expect(stats.failed).toBe(0);
    expect(stats.tokensPerPost).toBe(1);
    await t.settled();
    const after = await tradesPerToken(t);
    expect((after.get(hot!.address) ?? 0) - (before.get(hot!.address) ?? 0)).toBe(stats.accepted);
    for (const k of others) expect(after.get(k.address)).toBe(before.get(k.address));
    expect(() =>
      startIngestStream({ base: 'http://127.0.0.1:1', secret, tokens: [], serverNow: () => ANCHOR, tradesPerSecond: 1, intervalMs: 50, label: 'x' }),
    ).toThrow('the ingest stream needs at least one token');
  }, 30_000);
});

const load = (rps: number): LoadResult => ({
  requests: rps * 10,
  rps,
  p50: 5,
  p99: 20,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  statusCodes: { '200': rps * 10 },
  bytesPerAnswer: 100,
});

const stream = (posts: number, tokensPerPost: number): StreamStats => ({
  posts,
  accepted: posts * 40,
  duplicates: 0,
  failed: 0,
  statusCodes: { '200': posts },
  meanMs: 3,
  maxMs: 9,
  seconds: posts / 5,
  rate: 200,
  tokensPerPost,
  firstError: null,
});

const pass = (store: 'sqlite' | 'postgres', ingest: 'live' | 'broad' | undefined, routes: [string, number][]): PassResult => ({
  name: 'cached',
  store,
  ...(ingest === undefined ? {} : { ingest }),
  routes: routes.map(([id, rps]) => judgeRoute(id, `/${id}`, load(rps), load(1000), 0.5)),
  stream: stream(50, ingest === 'broad' ? 40 : 1),
  deepCursor: { depth: 1000, pages: 10, error: null },
  otherCores: 0.1,
  databaseCores: null,
});

describe('the report under the broad ingest', () => {
  it("names a broad pass's figures apart from the live pass's, its stream row with the tokens a post", () => {
    const rows = reportRows({
      passes: [pass('sqlite', undefined, [['overview', 600]]), pass('sqlite', 'broad', [['overview', 400]])],
      ingest: null,
      startup: null,
      postgresStartup: null,
      limiter: null,
      errors: {},
    });
    expect(rows.slice(0, 8).map((r) => `${r.figure} | ${r.ratio} | ${r.meets} | ${r.note}`)).toEqual([
      'cached: overview | 0.60 | yes | 100 B/answer',
      'cached: deep vs first trades page | - | - | cursor 1,000 trades deep',
      'cached: live ingest stream |  | yes | 50 posts, mean / max ms',
      'cached: CPU of other processes |  |  | ',
      'cached broad: overview | 0.40 | NO | 100 B/answer',
      'cached broad: deep vs first trades page | - | - | cursor 1,000 trades deep',
      'cached broad: broad ingest stream |  | yes | 50 posts of 40.0 tokens, mean / max ms',
      'cached broad: CPU of other processes |  |  | ',
    ]);
    expect(failures(rows).map((r) => r.figure)).toEqual(['cached broad: overview']);
  });

  it('pairs the stores pass by pass under the same ingest only', () => {
    const passes = [
      pass('sqlite', undefined, [['overview', 600]]),
      pass('postgres', undefined, [['overview', 300]]),
      pass('sqlite', 'broad', [['overview', 400]]),
      pass('postgres', 'broad', [['overview', 100]]),
    ];
    expect(storeComparison(passes).map((r) => [r.figure, r.sqlite.rps, r.postgres.rps, r.ratio])).toEqual([
      ['cached: overview', 600, 300, 0.5],
      ['cached broad: overview', 400, 100, 0.25],
    ]);
    // A broad pass on one store alone has nothing to be paired with.
    expect(storeComparison(passes.slice(0, 3)).map((r) => r.figure)).toEqual(['cached: overview']);
  });

  it('puts each route of a pass and store under the live and the broad ingest side by side', () => {
    const passes = [
      pass('sqlite', undefined, [
        ['overview', 600],
        ['holders', 700],
      ]),
      pass('postgres', 'live', [['overview', 550]]),
      pass('sqlite', 'broad', [
        ['overview', 400],
        ['holders', 900],
      ]),
      pass('postgres', 'broad', [['overview', 520]]),
    ];
    const rows = ingestComparison(passes);
    expect(rows.map((r) => [r.figure, r.store, r.live, r.broad, r.target, r.meets])).toEqual([
      ['cached: overview', 'sqlite', 0.6, 0.4, 0.5, false],
      ['cached: holders', 'sqlite', 0.7, 0.9, 0.5, true],
      ['cached: overview', 'postgres', 0.55, 0.52, 0.5, true],
    ]);
    const lines = formatIngestComparison(rows).split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^figure\s+store\s+live ratio\s+broad ratio\s+target\s+both meet\s+note$/);
    expect(lines[2]).toMatch(/^cached: overview\s+sqlite\s+0\.60\s+0\.40\s+>= 0\.50\s+NO$/);
    expect(lines[4]).toMatch(/^cached: overview\s+postgres\s+0\.55\s+0\.52\s+>= 0\.50\s+yes$/);
    expect(formatIngestComparison(ingestComparison(passes.filter((p) => p.ingest !== 'broad')))).toBe('');
  });
});
