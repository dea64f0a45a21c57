/**
 * Port contract: the trader board's reads, the removal log, and a retraction through the services
 * (docs/indexer.md, Reorgs: what a retraction removes) seen through the other repos.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResolution } from '../../src/domain/resolution.js';
import { A, D, NOW, openPortStore, W1, W2, type PortStore } from './fixture.js';

let t: PortStore;
beforeAll(async () => {
  t = await openPortStore();
});
afterAll(async () => {
  await t.close();
});

const T1 = [1, D + 10, W1, 1, 10];
const T3 = [3, D + 70, W2, 0, 20];
const T4 = [4, D + 130, W1, 1, 30];

describe('traderBoard and removals, before and after a retraction', () => {
  it("pages a token's trades by time and by id, up to a snapshot id", async () => {
    expect(await t.repos.traderBoard.maxId()).toBe(4);
    expect(await t.repos.traderBoard.pageByTime(t.idA, D, Infinity, NOW, 4, 10)).toEqual([T1, T3, T4]);
    expect(await t.repos.traderBoard.pageByTime(t.idA, D + 10, 1, D + 100, 4, 10)).toEqual([T3]);
    expect(await t.repos.traderBoard.pageByTime(t.idA, D, Infinity, NOW, 3, 1)).toEqual([T1]);
    expect(await t.repos.traderBoard.pageById(t.idA, 1, 4, 10)).toEqual([T3, T4]);
    expect(await t.repos.traderBoard.pageById(t.idA, 0, 3, 10)).toEqual([T1, T3]);
    expect(await t.repos.traderBoard.lastRemovalSeq()).toBe(0);
    expect(await t.repos.removals.lastRemovalSeq()).toBe(0);
    expect(await t.repos.removals.removalsAfter(0, 10)).toEqual([]);
  });

  it('a retraction removes the trade from every read and logs it; the highest id stays', async () => {
    expect(await t.services.ingest.retract({ trades: [{ signature: 'portsig3', index: 0 }], markets: [], tokens: [], records: [] })).toEqual({
      removed: 1,
      tokens: [A],
    });
    const seq = await t.repos.removals.lastRemovalSeq();
    expect(seq).toBeGreaterThan(0);
    expect(await t.repos.traderBoard.lastRemovalSeq()).toBe(seq);
    expect(await t.repos.removals.removalsAfter(0, 10)).toEqual([{ seq, tradeId: 3, tokenId: t.idA, signature: 'portsig3', index: 0 }]);
    expect(await t.repos.removals.removalsAfter(seq, 10)).toEqual([]);
    expect(await t.repos.traderBoard.removedAfter(t.idA, 0, 10)).toEqual([[seq, ...T3]]);
    expect(await t.repos.traderBoard.removedAfter(t.idB, 0, 10)).toEqual([]);
    expect(await t.repos.traderBoard.maxId()).toBe(4);
    expect(await t.repos.traderBoard.pageById(t.idA, 0, 4, 10)).toEqual([T1, T4]);
    expect((await t.repos.trades.page(t.idA, { side: null, wallet: null }, null, 4, 10)).map((r) => r.id)).toEqual([4, 1]);
    expect(await t.repos.candles.readBars(t.idA, parseResolution('1')!, { mode: 'range', from: D, to: D + 180 })).toEqual([
      { t: D, o: 1, h: 1, l: 1, c: 1, v: 10 },
      { t: D + 120, o: 3, h: 3, l: 3, c: 3, v: 30 },
    ]);
    expect(await t.repos.window.window(t.idA, NOW, 3600, D + 130)).toMatchObject({ trades: 2, volumeUsd: 40, sells: 0 });
    expect(await t.repos.stats.trades()).toBe(3);
  });
});
