import { describe, expect, it } from 'vitest';
import { COVER_SQL, createRankingRepo } from '../../src/store/ranking-repo.js';
import { makeTestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';

describe('ranking reads', () => {
  it('read each rollup bucket by one seek on (res, t, token_id), never a scan of other tokens', () => {
    const t = makeTestApp();
    try {
      for (const [table, sql] of [['market_rollups', COVER_SQL.markets]] as const) {
        const params = { tokenId: 1, l0: '[]', l1: '[]', l2: '[]', l3: '[]', r0f: 0, r0t: 0, r1f: 0, r1t: 0 };
        const named = Object.fromEntries(Object.entries(params).filter(([k]) => sql.includes(`@${k}`)));
        const plan = (t.store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(named) as { detail: string }[]).map((r) => r.detail);
        const rollupSteps = plan.filter((d) => d.includes(table));
        expect(rollupSteps.length).toBeGreaterThan(0);
        for (const d of rollupSteps) expect(d).toBe(`SEARCH ${table} USING PRIMARY KEY (res=? AND t=? AND token_id=?)`);
        for (const d of plan.filter((x) => x.includes(' trades ')))
          expect(d).toMatch(/^SEARCH trades USING (COVERING )?INDEX trades_token_\w+ \(token_id=\? AND block_time>\? AND block_time<\?\)$/);
      }
    } finally {
      t.close();
    }
  });

  it('keep tokens apart that trade in the same buckets with the same market address', () => {
    const t = makeTestApp();
    try {
      const now = 1_700_000_000;
      const [a, b] = [aToken(), aToken()];
      const wallet = anAddress('w');
      const market = aMarket(a.address);
      const trades = [];
      for (let i = 0; i < 40; i++) {
        trades.push(aTrade(a.address, { blockTime: now - i * 1800, wallet, market: market.address, volumeUsd: 1, side: 'buy' }));
        trades.push(aTrade(b.address, { blockTime: now - i * 1800, wallet, market: market.address, volumeUsd: 10, side: 'sell' }));
      }
      t.ingest([a, b, market, ...trades]);
      const id = (address: string) => t.store.db.prepare('SELECT id FROM tokens WHERE address = ?').pluck().get(address) as number;
      const ranking = createRankingRepo(t.store.db);
      // 40 trades each, every 30 minutes back from now: all inside 24 h
      for (const lastTradeAt of [now, now + 1]) {
        expect(ranking.marketStats(id(a.address), now, 86400, lastTradeAt).get(market.address)).toEqual({ volumeUsd: 40, trades: 40 });
        expect(ranking.marketStats(id(b.address), now, 86400, lastTradeAt).get(market.address)).toEqual({ volumeUsd: 400, trades: 40 });
      }
    } finally {
      t.close();
    }
  });
});
