/** Port contract: the demo repo (the demo feed's reads, pruning and removal) on records ingested as demo data. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A, B, D, MA1, MA2, openPortStore, RECORDS, W1, type PortStore } from './fixture.js';

let t: PortStore;
beforeAll(async () => {
  t = await openPortStore([]);
  await t.services.ingest.ingest(
    RECORDS.map((value, i) => ({ line: i + 1, value })),
    { demo: true },
  );
  t.idA = (await t.repos.tokens.byAddress(A))!.id;
  t.idB = (await t.repos.tokens.byAddress(B))!.id;
});
afterAll(async () => {
  await t.close();
});

const byId = <R extends { id: number }>(rows: R[]) => [...rows].sort((x, y) => x.id - y.id);

describe('demo', () => {
  it('reads what the demo feed moves: composition, tokens, markets, recent trades, SOL price, holders', async () => {
    expect(await t.repos.demo.composition()).toEqual({ tokens: 2, real: 0 });
    expect(await t.repos.demo.holdsOnlyDemo()).toBe(true);
    expect([...(await t.repos.demo.demoTokenIds())].sort((x, y) => x - y)).toEqual([t.idA, t.idB].sort((x, y) => x - y));
    expect(byId(await t.repos.demo.feedTokens())).toEqual(
      byId([
        { id: t.idA, address: A, price: 3, createdAt: D - 86400, lastTradeAt: D + 130 },
        { id: t.idB, address: B, price: 5, createdAt: D - 86400, lastTradeAt: D + 20 },
      ]),
    );
    expect([...(await t.repos.demo.markets(t.idA))].sort((x, y) => (x.address < y.address ? -1 : 1))).toEqual([
      { address: MA1, quoteSymbol: 'SOL', liquidityUsd: 5000 },
      { address: MA2, quoteSymbol: 'SOL', liquidityUsd: 1000 },
    ]);
    expect(await t.repos.demo.recent(t.idA, D + 60)).toEqual({ trades: 2, avgVolumeUsd: 25, firstTime: D + 70 });
    expect(await t.repos.demo.recent(t.idA, D + 131)).toEqual({ trades: 0, avgVolumeUsd: null, firstTime: null });
    expect(await t.repos.demo.solPrice(t.idA)).toBe(100);
    expect(await t.repos.demo.holderCount(t.idA)).toBe(2);
    expect(await t.repos.demo.topHolders(t.idA, 1)).toEqual([W1]);
    expect(await t.repos.demo.newestTraded()).toBe(A);
    expect(await t.repos.demo.oldestDemoTrade()).toBe(D + 10);
  });

  it('pruneDemoBefore takes whole hours of demo trades; removeDemo takes every demo row', async () => {
    await expect((async () => t.repos.demo.pruneDemoBefore(D + 1))()).rejects.toThrow(RangeError);
    expect(await t.repos.demo.pruneDemoBefore(D + 3600)).toBe(4);
    expect(await t.repos.demo.oldestDemoTrade()).toBeNull();
    expect(await t.repos.demo.removeDemo()).toEqual({ tokens: 2, markets: 3, trades: 0, holders: 2, events: 0 });
    expect(await t.repos.demo.composition()).toEqual({ tokens: 0, real: 0 });
    expect(await t.repos.demo.holdsOnlyDemo()).toBe(false);
  });
});
