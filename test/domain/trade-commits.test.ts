/**
 * The trade_commits steps of an ingest (src/domain/trade-commits.ts), computed once for both
 * engines: one row per transaction, opened by its first slice with trades, moved by later ones.
 */
import { describe, expect, it } from 'vitest';
import { PRUNE_EVERY, tradeCommits } from '../../src/domain/trade-commits.js';

const ids = (...list: number[]) => list.map((id) => ({ id }));

describe('tradeCommits', () => {
  it('opens a row at the first slice with trades and moves its end at the later slices of the same transaction', () => {
    const next = tradeCommits();
    expect(next({ first: true, trades: [] })).toBeNull();
    expect(next({ first: false, trades: ids(3, 5, 4) })).toEqual({ kind: 'open', last: 5, prune: false });
    expect(next({ first: false, trades: ids(6) })).toEqual({ kind: 'move', last: 6, from: 5 });
    expect(next({ first: false, trades: [] })).toBeNull();
    expect(next({ first: false, trades: ids(8, 7) })).toEqual({ kind: 'move', last: 8, from: 6 });
    expect(next({ first: true, trades: ids(9) })).toEqual({ kind: 'open', last: 9, prune: false });
  });

  it('prunes at every PRUNE_EVERY-th transaction that opened a row', () => {
    const next = tradeCommits();
    const prunes: number[] = [];
    for (let n = 1; n <= 2 * PRUNE_EVERY; n++) {
      const step = next({ first: true, trades: ids(n) });
      if (step?.kind === 'open' && step.prune) prunes.push(n);
      next({ first: true, trades: [] }); // a transaction without trades counts for nothing
    }
    expect(prunes).toEqual([PRUNE_EVERY, 2 * PRUNE_EVERY]);
  });
});
