/** Ranking reads (src/store/sqlite/ranking-repo.ts) on either store; SQLite's query plans are pinned in ranking-plan.test.ts. */
import { describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';
import { readTokenId } from '../v1/naive.js';

describe('ranking reads', () => {
  it('keep tokens apart that trade in the same buckets with the same market address', async () => {
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
      await t.ingest([a, b, market, ...trades]);
      const [idA, idB] = [await readTokenId(t.store, a.address), await readTokenId(t.store, b.address)];
      const ranking = t.services.repos.ranking;
      // 40 trades each, every 30 minutes back from now: all inside 24 h
      for (const lastTradeAt of [now, now + 1]) {
        expect((await ranking.marketStats(idA, now, 86400, lastTradeAt)).get(market.address)).toEqual({ volumeUsd: 40, trades: 40 });
        expect((await ranking.marketStats(idB, now, 86400, lastTradeAt)).get(market.address)).toEqual({ volumeUsd: 400, trades: 40 });
      }
    } finally {
      await t.close();
    }
  });
});
