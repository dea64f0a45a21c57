/** Resolution buckets: fixed widths from the epoch, weeks from Monday, months from the 1st (UTC). */
import { describe, expect, it } from 'vitest';
import { bucketStart, nextBucket, parseResolution, rollupSourceFor, rowsPerBar, type Resolution } from '../../src/domain/resolution.js';

const res = (key: string): Resolution => parseResolution(key)!;
/** 2024-02-29 13:47:05 UTC, a Thursday. */
const T = Date.UTC(2024, 1, 29, 13, 47, 5) / 1000;

describe('bucketStart', () => {
  it('starts fixed widths at a multiple of the width since the epoch', () => {
    expect(bucketStart(res('1S'), T)).toBe(T);
    expect(bucketStart(res('15S'), T)).toBe(Date.UTC(2024, 1, 29, 13, 47, 0) / 1000);
    expect(bucketStart(res('5'), T)).toBe(Date.UTC(2024, 1, 29, 13, 45) / 1000);
    expect(bucketStart(res('240'), T)).toBe(Date.UTC(2024, 1, 29, 12) / 1000);
    expect(bucketStart(res('D'), T)).toBe(Date.UTC(2024, 1, 29) / 1000);
  });

  it('starts weeks on Monday 00:00 UTC', () => {
    expect(bucketStart(res('1W'), T)).toBe(Date.UTC(2024, 1, 26) / 1000);
    expect(bucketStart(res('W'), Date.UTC(2024, 1, 26) / 1000)).toBe(Date.UTC(2024, 1, 26) / 1000);
    expect(bucketStart(res('W'), Date.UTC(2024, 1, 25, 23, 59, 59) / 1000)).toBe(Date.UTC(2024, 1, 19) / 1000);
    // Before the first Monday after the epoch (1970-01-05): the week of Monday 1969-12-29.
    expect(bucketStart(res('1W'), 0)).toBe(-3 * 86400);
  });

  it('starts months on the 1st 00:00 UTC', () => {
    expect(bucketStart(res('1M'), T)).toBe(Date.UTC(2024, 1, 1) / 1000);
    expect(bucketStart(res('M'), Date.UTC(2024, 2, 1) / 1000 - 1)).toBe(Date.UTC(2024, 1, 1) / 1000);
  });

  it('is the start of its own bucket, and the next bucket starts after the time', () => {
    for (const key of ['1S', '30S', '1', '60', '1D', '1W', '1M']) {
      const start = bucketStart(res(key), T);
      expect(bucketStart(res(key), start)).toBe(start);
      expect(start).toBeLessThanOrEqual(T);
      expect(nextBucket(res(key), start)).toBeGreaterThan(T);
    }
  });
});

describe('nextBucket', () => {
  it('adds the width, or moves to the next month', () => {
    expect(nextBucket(res('15'), 900)).toBe(1800);
    expect(nextBucket(res('1M'), Date.UTC(2024, 1, 1) / 1000)).toBe(Date.UTC(2024, 2, 1) / 1000);
    expect(nextBucket(res('1M'), Date.UTC(2024, 11, 1) / 1000)).toBe(Date.UTC(2025, 0, 1) / 1000);
  });
});

describe('parseResolution, rollupSourceFor, rowsPerBar', () => {
  it('refuses what the datafeed does not list', () => {
    expect(parseResolution('2')).toBeNull();
    expect(parseResolution('1d')).toBeNull();
  });

  it('folds each resolution from the widest rollup dividing it', () => {
    const table = ['1S', '5S', '15S', '30S', '1', '5', '15', '30', '60', '240', '1D', '1W', '1M'].map((k) => [k, rollupSourceFor(res(k)), rowsPerBar(res(k))]);
    expect(table).toEqual([
      ['1S', 1, 1],
      ['5S', 1, 5],
      ['15S', 15, 1],
      ['30S', 15, 2],
      ['1', 60, 1],
      ['5', 60, 5],
      ['15', 900, 1],
      ['30', 900, 2],
      ['60', 3600, 1],
      ['240', 3600, 4],
      ['1D', 86400, 1],
      ['1W', 86400, 7],
      ['1M', 86400, 31],
    ]);
  });
});
