/**
 * Per-market rollups (README, Pairs and native prices): a market's seconds bars read rollups only.
 * (SQLite's migrations 011 and 013 that fill them are tested in rollup-migrations.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { parseResolution } from '../../src/domain/resolution.js';
import { readTokenId } from '../v1/naive.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const START = 1_700_000_000;

describe('market_candles', () => {
  it("read a market's seconds bars from rollups: at most countback x rows-per-bar rows", async () => {
    const app = (t = makeTestApp());
    const tok = aToken();
    const [a, b] = [aMarket(tok.address), aMarket(tok.address, { quoteSymbol: 'USDC' })];
    // 10 trades a second in each market for 600 s
    const trades = Array.from({ length: 12_000 }, (_, i) =>
      aTrade(tok.address, {
        market: (i % 2 === 0 ? a : b).address,
        blockTime: START + Math.floor(i / 20),
        priceUsd: 1 + (i % 89) / 10,
        amount: 1 + (i % 5),
        quoteAmount: 0.5,
      }),
    );
    await app.ingest([tok, a, b, ...trades]);
    const id = await readTokenId(app.store, tok.address);
    const repo = app.services.repos.marketCandles;
    for (const [key, perBar] of [
      ['1S', 1],
      ['5S', 5],
      ['30S', 2],
    ] as const) {
      const stats = { rows: -1 };
      const bars = await repo.readBars(id, a.address, 'native', parseResolution(key)!, { mode: 'countback', to: START + 600, countback: 10 }, stats);
      expect(bars, key).toHaveLength(10);
      expect(stats.rows, key).toBeLessThanOrEqual(10 * perBar + 1);
      // market a holds the trades of even index: amount 1, 3, 5, 2, 4, ... so native prices 0.5 / amount
      expect(Math.max(...bars.map((x) => x.h)), key).toBe(0.5);
      expect(Math.min(...bars.map((x) => x.l)), key).toBe(0.1);
    }
    expect(await repo.lastPrice(id, a.address, 'native')).toBe(0.5 / (1 + (11_998 % 5)));
    expect(await repo.lastPrice(id, b.address, 'usd')).toBe(1 + (11_999 % 89) / 10);
  });
});
