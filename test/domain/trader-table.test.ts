import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TallyTable, WalletNames } from '../../src/domain/trader-table.js';
import { applyTrade, figuresOf, newTally } from '../../src/domain/trader-tally.js';

const pause = () => Promise.resolve();

describe('trader table', () => {
  it('keeps the same figures as a trader tally for any sequence of trades entering and leaving', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ w: fc.integer({ min: 0, max: 4 }), buy: fc.boolean(), vol: fc.double({ min: 0, max: 1e9, noNaN: true }), out: fc.boolean() })),
        (ops) => {
          const names = new WalletNames();
          const table = new TallyTable(names);
          const tallies = new Map<string, ReturnType<typeof newTally>>();
          for (const op of ops) {
            const wallet = `w${op.w}`;
            const t = tallies.get(wallet) ?? newTally(wallet);
            tallies.set(wallet, t);
            const sign = op.out && t.buys + t.sells > 0 ? -1 : 1;
            applyTrade(t, op.buy, op.vol, sign);
            table.apply(table.ensure(names.id(wallet)), op.buy, op.vol, sign);
          }
          for (const [wallet, t] of tallies) expect(figuresOf(table.tally(table.rowOf(names.id(wallet))))).toEqual(figuresOf(t));
        },
      ),
    );
  });

  it('reuses the row of a wallet that left, and knows no row for it meanwhile', () => {
    const names = new WalletNames();
    const table = new TallyTable(names);
    const a = table.ensure(names.id('a'));
    table.apply(a, true, 5, 1);
    table.release(a);
    expect(table.rowOf(names.id('a'))).toBe(-1);
    expect(table.size).toBe(0);
    const b = table.ensure(names.id('b'));
    expect(b).toBe(a);
    expect(table.tally(b)).toMatchObject({ wallet: 'b', b: 0, buys: 0, volume: 0 });
  });

  it('ranks names in name order, again once names were added, and breaks ties by that rank as by name', async () => {
    const names = new WalletNames();
    for (const n of ['d', 'b', 'a', 'c']) names.id(n);
    expect([...(await names.ranks(pause))]).toEqual([3, 1, 0, 2]);
    names.id('aa');
    expect([...(await names.ranks(pause))]).toEqual([4, 2, 0, 3, 1]);
    const table = new TallyTable(names);
    const rows = ['d', 'b', 'a', 'c', 'aa'].map((n) => table.ensure(names.id(n)));
    for (const r of rows) table.apply(r, true, 1, 1);
    const ranked = table.rankedOrders(await names.ranks(pause));
    for (const sort of ['volume', 'trades', 'net'] as const) {
      expect([...rows].sort(ranked[sort]).map((r) => table.tally(r).wallet)).toEqual(['a', 'aa', 'b', 'c', 'd']);
      expect([...rows].sort(table.orders[sort])).toEqual([...rows].sort(ranked[sort]));
    }
  });
});
