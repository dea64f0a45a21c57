/**
 * createPgRepos() gives the same `Repos` as createSqliteRepos(): one read of every repo, on one
 * market store copied from SQLite, answers the same on both (the PostgreSQL store's candle,
 * market-candle and stream repos are the ones passed in, until their twins join it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteRepos, type Repos } from '../../src/store/sqlite/repos.js';
import { createPgRepos } from '../../src/store/pg/repos.js';
import { parseResolution } from '../../src/domain/resolution.js';
import { marketFixture, type MarketFixture } from './market-fixture.js';
import { sameAnswers, type Call } from './twins.js';

const T0 = 1_700_000_000;

describe('createPgRepos', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('repos', 17, { holders: true, demo: true, varied: true });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers one read of every repo as the SQLite repos do', async () => {
    const lite = createSqliteRepos(f.store, 'solana');
    const pg = createPgRepos(f.engines.pool, 'solana');
    const token = f.tokens.find((t) => f.store.db.prepare('SELECT count(*) FROM trades WHERE token_id = ?').pluck().get(t.id) !== 0)!;
    // One read per repo; the record's type makes a repo added to Repos fail to compile here until it has one.
    const reads: { [K in keyof Repos]: (r: Repos) => Promise<unknown> } = {
      accounts: (r) => r.accounts.plan('free'),
      candles: (r) => r.candles.newestBarBefore(token.id, parseResolution('1')!, T0 + 200),
      demo: (r) => r.demo.composition(),
      discovery: (r) => r.discovery.newest(5),
      events: (r) => r.events.count('t1'),
      indexer: (r) => r.indexer.position('solana'),
      marketCandles: (r) => r.marketCandles.marketToken(f.markets[0]!),
      meta: (r) => r.meta.get('demo'),
      ranking: (r) => r.ranking.markets(token.id, 5),
      removals: (r) => r.removals.removalsAfter(0, 5),
      searchIndex: (r) => r.searchIndex.inAddressOrder('', 5),
      sessions: (r) => r.sessions.find(Buffer.from('aa', 'hex')),
      signInCounts: (r) => r.signInCounts.count('attempt:x', 0, 5),
      stats: (r) => r.stats.tokens(),
      stream: (r) => r.stream.maxTradeId(token.id),
      subscriptions: (r) => r.subscriptions.any(),
      symbols: (r) => r.symbols.exchanges(),
      tokenChanges: (r) => r.tokenChanges.bounds(),
      tokens: (r) => r.tokens.byId(token.id),
      traderBoard: (r) => r.traderBoard.pageByTime(token.id, T0, Infinity, T0 + 200, f.maxTradeId, 5),
      trades: (r) => r.trades.maxId(),
      outbox: (r) => r.outbox.pendingCount(),
      window: (r) => r.window.window(token.id, T0 + 200, 3600, T0 + 130),
    };
    const calls: Call<Repos>[] = Object.entries(reads).map(([label, run]) => ({ label, run }));
    const answers = await sameAnswers(lite, pg, calls);
    expect(Object.keys(reads).sort()).toEqual(Object.keys(pg).sort());
    expect(answers.every((a) => 'value' in a)).toBe(true);
    expect(answers.filter((a) => 'value' in a && a.value !== undefined && a.value !== 0 && a.value !== false).length).toBeGreaterThan(15);
  });
});
