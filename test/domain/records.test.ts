// Record validation (docs/api.md, Data and ingest): times are unix seconds, and a time in
// milliseconds is told so rather than only "past the year 10000".
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../src/domain/records.js';

const token = 'So11111111111111111111111111111111111111112';
const holder = (updatedAt: number) => ({ type: 'holder', token, owner: token, amount: 1, updatedAt });

describe('record times', () => {
  it('hints that times are seconds when a time looks like milliseconds', () => {
    expect(parseRecord(holder(1_700_000_000_123))).toEqual({
      ok: false,
      error: 'updatedAt must be before the year 10000: times are unix seconds, and 1700000000123 looks like milliseconds (1700000000 in seconds)',
    });
  });

  it('says only the bound for a time beyond the year 10000 even in milliseconds', () => {
    expect(parseRecord(holder(1e15))).toEqual({ ok: false, error: 'updatedAt must be before the year 10000' });
  });

  it('takes the last second of the year 9999', () => {
    expect(parseRecord(holder(253_402_300_799)).ok).toBe(true);
  });
});
