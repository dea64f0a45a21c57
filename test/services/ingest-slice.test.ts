/**
 * The slice rules of the ingest boundary (src/services/ingest-slice.ts), on what an engine writer
 * answered: accepted and duplicate counts, new trades, touched tokens in first-touched order,
 * markets that change every token's lists, and the last trade of each token.
 */
import { describe, expect, it } from 'vitest';
import { settleSlice, sliceRows } from '../../src/services/ingest-slice.js';
import type { NumberedRecord } from '../../src/services/ingest.js';
import type { IngestRecord } from '../../src/domain/records.js';
import { aHolder, aMarket, aToken, aTrade } from '../helpers/builders.js';

const numbered = (records: unknown[]): NumberedRecord[] => records.map((record, i) => ({ line: i + 1, record: record as IngestRecord }));

describe('ingest slice rules', () => {
  const a = aToken();
  const b = aToken();
  const m = aMarket(a.address, { dex: 'orca' });

  it('sorts records by kind, each in record order', () => {
    const t1 = aTrade(a.address, { signature: 's1' });
    const t2 = aTrade(b.address, { signature: 's2' });
    const rows = sliceRows(numbered([t1, a, m, aHolder(a.address), t2, b]), 50, true);
    expect(rows.tokens.map((r) => r.address)).toEqual([a.address, b.address]);
    expect(rows.trades.map((r) => r.signature)).toEqual(['s1', 's2']);
    expect([rows.markets.length, rows.holders.length, rows.now, rows.demo]).toEqual([1, 1, 50, true]);
  });

  it('counts stored trades as duplicates, touches tokens in first-touched order and keeps each token\u2019s newest trade', () => {
    const records = numbered([
      aTrade(b.address, { signature: 'x', blockTime: 100 }),
      aTrade(a.address, { signature: 'y', blockTime: 300 }),
      aTrade(a.address, { signature: 'z', blockTime: 300 }),
      aTrade(a.address, { signature: 'w', blockTime: 200 }),
      aHolder(a.address),
    ]);
    const ids = new Map([
      [a.address, 7],
      [b.address, 3],
    ]);
    const s = settleSlice(records, { ids, marketsBefore: [], tradeIds: [11, null, 12, 13] }, 999);
    expect(s.result).toEqual({ accepted: 4, duplicates: 1, change: new Set([3, 7]) });
    expect([...s.touched]).toEqual([3, 7]);
    expect(s.trades.map((t) => [t.id, t.tokenId, t.signature])).toEqual([
      [11, 3, 'x'],
      [12, 7, 'z'],
      [13, 7, 'w'],
    ]);
    // Same time: the higher record number is the later trade.
    expect(s.derived.last.map((t) => [t.tokenId, t.id])).toEqual([
      [3, 11],
      [7, 12],
    ]);
    expect(s.derived.candles.length).toBeGreaterThan(0);
    expect(s.derived.now).toBe(999);
  });

  it('changes every token\u2019s lists for a new market or a new dex, and the old token\u2019s for a moved one', () => {
    const ids = new Map([
      [a.address, 1],
      [b.address, 2],
    ]);
    const settle = (before: { tokenId: number; dex: string } | undefined, record = m) =>
      settleSlice(numbered([record]), { ids, marketsBefore: [before], tradeIds: [] }, 0).result.change;
    expect(settle(undefined)).toBe('all');
    expect(settle({ tokenId: 1, dex: 'raydium' })).toBe('all');
    expect(settle({ tokenId: 1, dex: 'orca' })).toEqual(new Set([1]));
    expect(settle({ tokenId: 2, dex: 'orca' })).toEqual(new Set([2, 1]));
  });

  it('refuses to settle a record whose token the writer did not resolve', () => {
    expect(() => settleSlice(numbered([aHolder(a.address)]), { ids: new Map(), marketsBefore: [], tradeIds: [] }, 0)).toThrow(/vanished/);
  });
});
