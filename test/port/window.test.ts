/** Port contract: window statistics, the ranking repo (a token's lists), the discovery repo and the token change log. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A, B, D, MA1, MA2, MB, NOW, openPortStore, SOL, W1, W2, type PortStore } from './fixture.js';

let t: PortStore;
beforeAll(async () => {
  t = await openPortStore();
});
afterAll(async () => {
  await t.close();
});

describe('window', () => {
  it('window and between add up the trades of a window, open and close in trade order', async () => {
    const all = { volumeUsd: 60, buyVolumeUsd: 40, sellVolumeUsd: 20, trades: 3, buys: 2, sells: 1, open: 1, close: 3, high: 3, low: 1 };
    expect(await t.repos.window.window(t.idA, NOW, 3600, D + 130)).toEqual(all);
    expect(await t.repos.window.between(t.idA, D + 11, D + 131, D + 130)).toEqual({
      volumeUsd: 50,
      buyVolumeUsd: 30,
      sellVolumeUsd: 20,
      trades: 2,
      buys: 1,
      sells: 1,
      open: 2,
      close: 3,
      high: 3,
      low: 2,
    });
    expect(await t.repos.window.window(t.idA, D + 9, 60, D + 130)).toMatchObject({ trades: 0, volumeUsd: 0, open: null, close: null });
  });

  it('priceAt is the last price at or before a time', async () => {
    expect(await t.repos.window.priceAt(t.idA, D + 100)).toBe(2);
    expect(await t.repos.window.priceAt(t.idA, D)).toBeNull();
  });
});

describe('ranking', () => {
  it('uniqueWallets counts the wallets of a window', async () => {
    expect(await t.repos.ranking.uniqueWallets(t.idA, NOW, 3600, D + 130)).toBe(2);
    expect(await t.repos.ranking.uniqueWallets(t.idA, D + 100, 60, D + 130)).toBe(1);
  });

  it("marketStats, marketPrices and marketSummary give a token's figures per market", async () => {
    expect(Object.fromEntries(await t.repos.ranking.marketStats(t.idA, NOW, 3600, D + 130))).toEqual({
      [MA1]: { volumeUsd: 30, trades: 2 },
      [MA2]: { volumeUsd: 30, trades: 1 },
    });
    expect(Object.fromEntries(await t.repos.ranking.marketPrices(t.idA))).toEqual({ [MA1]: 2, [MA2]: 3 });
    expect(await t.repos.ranking.marketSummary(t.idA)).toEqual({ count: 2, liquidityUsd: 6000 });
  });

  it("markets lists a token's markets by liquidity", async () => {
    expect(await t.repos.ranking.markets(t.idA, 10)).toEqual([
      { address: MA1, dex: 'raydium', quoteAddress: SOL, quoteSymbol: 'SOL', liquidityUsd: 5000, createdAt: D - 3600 },
      { address: MA2, dex: 'orca', quoteAddress: SOL, quoteSymbol: 'SOL', liquidityUsd: 1000, createdAt: D - 3600 },
    ]);
    expect((await t.repos.ranking.markets(t.idB, 1)).map((m) => m.address)).toEqual([MB]);
  });

  it('holders and holderCount', async () => {
    expect(await t.repos.ranking.holders(t.idA, 10)).toEqual([
      { owner: W1, amount: 300 },
      { owner: W2, amount: 100 },
    ]);
    expect(await t.repos.ranking.holderCount(t.idA)).toBe(2);
    expect(await t.repos.ranking.holderCount(t.idB)).toBe(0);
  });
});

describe('discovery', () => {
  it('tradedSince and tradedBetween name the tokens traded in a time', async () => {
    expect([...(await t.repos.discovery.tradedSince(D + 100))]).toEqual([t.idA]);
    expect([...(await t.repos.discovery.tradedSince(D))].sort()).toEqual([t.idA, t.idB].sort());
    expect([...(await t.repos.discovery.tradedBetween(D + 15, D + 25))]).toEqual([t.idB]);
  });

  it("summary and newest give the tokens' summaries", async () => {
    const b = {
      id: t.idB,
      address: B,
      symbol: 'BETA',
      name: 'Beta Dollar',
      priceUsd: 5,
      circulatingSupply: 800_000,
      createdAt: D - 86400,
      lastTradeAt: D + 20,
      liquidityUsd: 2000,
    };
    expect(await t.repos.discovery.summary(t.idB)).toEqual(b);
    expect((await t.repos.discovery.newest(2)).map((s) => s.address)).toEqual([A, B]);
  });
});

describe('tokenChanges', () => {
  it('logs the tokens of each ingest transaction; bounds, last and since read it', async () => {
    const { first, last } = await t.repos.tokenChanges.bounds();
    expect(last - first).toBe(1);
    expect(await t.repos.tokenChanges.last()).toBe(last);
    expect([...(await t.repos.tokenChanges.since(first - 1, last))].sort((x, y) => x - y)).toEqual([t.idA, t.idB].sort((x, y) => x - y));
    await t.ingest([
      {
        type: 'trade',
        token: B,
        market: MB,
        signature: 'portsig-change',
        index: 0,
        blockTime: D + 400,
        side: 'buy',
        priceUsd: 6,
        amount: 10,
        quoteAmount: 0.6,
        volumeUsd: 60,
        wallet: W1,
      },
    ]);
    const next = await t.repos.tokenChanges.last();
    expect(next).toBe(last + 1);
    expect(await t.repos.tokenChanges.since(last, next)).toEqual([t.idB]);
    expect(await t.repos.tokenChanges.since(next, next)).toEqual([]);
  });
});
