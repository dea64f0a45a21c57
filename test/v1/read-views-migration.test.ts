import { afterEach, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, openStore } from '../../src/store/sqlite/db.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, anAddress } from '../helpers/builders.js';
import { createRankingRepo } from '../../src/store/sqlite/ranking-repo.js';
import { inWindow, rawTrades, sum } from './naive.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

describe('migration 003 (read views)', () => {
  it('fills the views from trades stored before it, so ranked lists are right at once', async () => {
    const store = openStore(':memory:', { migrate: false });
    migrate(
      store.db,
      loadMigrations().filter((m) => m.version <= 2),
    );
    const tok = aToken();
    store.db
      .prepare(
        `INSERT INTO tokens (id, address, symbol, name, decimals, created_at, updated_at, last_trade_at, price_usd) VALUES (1, ?, 'OLD', 'Old', 6, 0, 0, ?, 1)`,
      )
      .run(tok.address, NOW);
    const wallets = [anAddress('w'), anAddress('w'), anAddress('w')];
    const markets = [anAddress('m'), anAddress('m')];
    const insert = store.db.prepare(
      `INSERT INTO trades (token_id, block_time, signature, idx, is_buy, price_usd, amount, quote_amount, volume_usd, wallet, market)
       VALUES (1, ?, ?, 0, ?, ?, 1, 1, ?, ?, ?)`,
    );
    for (let i = 0; i < 300; i++) {
      const tr = aTrade(tok.address, { blockTime: NOW - ((i * 104_729) % (32 * 86400)) });
      insert.run(tr.blockTime, tr.signature, i % 3 === 0 ? 1 : 0, 1 + (i % 5), i % 11, wallets[i % 3], markets[i % 2]);
    }
    migrate(store.db);
    t = makeTestApp({ store });
    const all = rawTrades(store, 1);
    const res = await t.http.get(`/v1/token/${tok.address}/top-traders?window=30d&sort=net`);
    expect(res.status).toBe(200);
    const inW = inWindow(all, NOW, 30 * 86400);
    for (const row of res.body.traders) {
      const mine = inW.filter((x) => x.wallet === row.wallet);
      expect(row.trades).toBe(mine.length);
      expect(row.netUsd).toBe(sum(mine.filter((x) => x.isBuy === 0).map((x) => x.vol)) - sum(mine.filter((x) => x.isBuy === 1).map((x) => x.vol)));
    }
    expect(res.body.traders).toHaveLength(new Set(inW.map((x) => x.wallet)).size);
    const ranking = createRankingRepo(store.db);
    expect(ranking.uniqueWallets(1, NOW, 3600, NOW)).toBe(new Set(inWindow(all, NOW, 3600).map((x) => x.wallet)).size);
    const prices = ranking.marketPrices(1);
    for (const m of markets) expect(prices.get(m)).toBe(all.filter((x) => x.market === m).at(-1)!.price);
    const stats = ranking.marketStats(1, NOW, 86400, NOW);
    for (const m of markets) expect(stats.get(m)?.trades ?? 0).toBe(inWindow(all, NOW, 86400).filter((x) => x.market === m).length);
  });
});
