/** Port contract: the trades and stream repos (pages in trade order, prices at a time, the stream's reads). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A, D, MA1, MA2, MB, openPortStore, W1, W2, type PortStore } from './fixture.js';

let t: PortStore;
beforeAll(async () => {
  t = await openPortStore();
});
afterAll(async () => {
  await t.close();
});

/** The JSON form of fixture trade `n` (ids follow the batch's order). */
const json = (id: number, dt: number, side: 'buy' | 'sell', priceUsd: number, wallet: string, market: string, dex: string) => ({
  id,
  signature: `portsig${id}`,
  index: 0,
  blockTime: D + dt,
  side,
  priceUsd,
  amount: 10,
  quoteAmount: priceUsd / 10,
  volumeUsd: priceUsd * 10,
  wallet,
  market,
  dex,
});
const T1 = json(1, 10, 'buy', 1, W1, MA1, 'raydium');
const T2 = json(2, 20, 'buy', 5, W2, MB, 'raydium');
const T3 = json(3, 70, 'sell', 2, W2, MA1, 'raydium');
const T4 = json(4, 130, 'buy', 3, W1, MA2, 'orca');
const row = ({ side, ...r }: typeof T1) => ({ ...r, isBuy: side === 'buy' });
const ids = (rows: readonly { id: number }[]) => rows.map((r) => r.id);
const ALL = { side: null, wallet: null } as const;

describe('trades', () => {
  it('maxId is the highest trade id', async () => {
    expect(await t.repos.trades.maxId()).toBe(4);
  });

  it('page gives a token its trades newest first, filtered, before a position and up to a bound', async () => {
    const page = await t.repos.trades.page(t.idA, ALL, null, 4, 10);
    expect(page.map((r) => ({ ...r, isBuy: r.isBuy === true || r.isBuy === 1 }))).toEqual([row(T4), row(T3), row(T1)]);
    expect(ids(await t.repos.trades.page(t.idA, ALL, null, 4, 2))).toEqual([4, 3]);
    expect(ids(await t.repos.trades.page(t.idA, ALL, { blockTime: D + 70, id: 3 }, 4, 10))).toEqual([1]);
    expect(ids(await t.repos.trades.page(t.idA, ALL, null, 3, 10))).toEqual([3, 1]);
    expect(ids(await t.repos.trades.page(t.idA, { side: 'buy', wallet: null }, null, 4, 10))).toEqual([4, 1]);
    expect(ids(await t.repos.trades.page(t.idA, { side: null, wallet: W2 }, null, 4, 10))).toEqual([3]);
    expect(ids(await t.repos.trades.page(t.idA, { side: 'sell', wallet: W1 }, null, 4, 10))).toEqual([]);
    expect(ids(await t.repos.trades.page(t.idA, { side: null, wallet: null, after: D + 10, before: D + 130 }, null, 4, 10))).toEqual([3, 1]);
  });

  it('lastAtOrBefore gives the last trade at or before a time, in trade order', async () => {
    expect(await t.repos.trades.lastAtOrBefore(t.idA, D + 70)).toEqual({ priceUsd: 2, blockTime: D + 70, tradeId: 3 });
    expect(await t.repos.trades.lastAtOrBefore(t.idA, D + 69)).toEqual({ priceUsd: 1, blockTime: D + 10, tradeId: 1 });
    expect(await t.repos.trades.lastAtOrBefore(t.idA, D + 9)).toBeNull();
  });

  it("dexOf names a market's dex, null for an unknown market", async () => {
    expect(await t.repos.trades.dexOf(MA2)).toBe('orca');
    expect(await t.repos.trades.dexOf(A)).toBeNull();
  });
});

describe('stream', () => {
  it("tradesAfter gives a token's trades after an id up to a bound, ascending, as JSON", async () => {
    expect(await t.repos.stream.tradesAfter(t.idA, 0, 4, 10)).toEqual([T1, T3, T4]);
    expect(await t.repos.stream.tradesAfter(t.idA, 1, 3, 10)).toEqual([T3]);
    expect(await t.repos.stream.tradesAfter(t.idA, 0, 4, 1)).toEqual([T1]);
    expect(await t.repos.stream.tradesAfter(t.idB, 0, 4, 10)).toEqual([T2]);
  });

  it("maxTradeId is a token's highest trade id, 0 without trades", async () => {
    expect(await t.repos.stream.maxTradeId(t.idA)).toBe(4);
    expect(await t.repos.stream.maxTradeId(t.idB)).toBe(2);
    expect(await t.repos.stream.maxTradeId(t.idA + t.idB + 100)).toBe(0);
  });

  it('commitEnds: the one ingest transaction ends at its last trade', async () => {
    expect(await t.repos.stream.commitEnds(1, 4)).toEqual([]);
    expect(await t.repos.stream.commitEnds(1, 5)).toEqual([4]);
  });
});
