/** The covering of a window by rollup buckets, and the fold of the segments' figures. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  coverBuckets,
  coverSegments,
  foldSegments,
  trailingWindow,
  walletCountSource,
  windowSegments,
  type SegmentAgg,
} from '../../src/domain/window-cover.js';

describe('coverSegments', () => {
  it('covers [from, to) exactly with aligned segments in order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 3_000_000 }), (from, len) => {
        const segs = coverSegments(from, from + len);
        let at = from;
        for (const s of segs) {
          expect(s.from).toBe(at);
          expect(s.to).toBeGreaterThan(s.from);
          if (s.level !== null) {
            expect(s.from % s.level).toBe(0);
            expect(s.to % s.level).toBe(0);
          }
          at = s.to;
        }
        expect(at).toBe(len === 0 ? from : from + len);
      }),
    );
  });
});

describe('windowSegments', () => {
  const LEVELS = [86400, 3600, 60];
  it('reads [from, to) as it is while the token has a trade at or after `to`', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 3_000_000 }), fc.integer({ min: 0, max: 100 }), (from, len, after) => {
        expect(windowSegments(from, from + len, from + len + after, LEVELS)).toEqual(coverSegments(from, from + len, LEVELS));
      }),
    );
  });

  it('ends past the last trade on the next boundary of the widest level, the newest trades in a rollup', () => {
    const from = 1_700_000_000 - 86400 + 1;
    const to = 1_700_000_001;
    const segs = windowSegments(from, to, 1_700_000_000, LEVELS);
    expect(segs[0]!.from).toBe(from);
    expect(segs.at(-1)!.to).toBe(Math.ceil(to / 86400) * 86400);
    // the second before `to` lies in a rollup bucket, not in raw trades
    expect(segs.find((s) => s.from <= to - 1 && to - 1 < s.to)!.level).not.toBeNull();
    expect(windowSegments(from, to, null, LEVELS).at(-1)!.to).toBe(Math.ceil(to / 86400) * 86400);
  });
});

describe('coverSegments, exact values', () => {
  it('takes whole days, then hours, then minutes, then raw seconds at each edge', () => {
    // 86_399 .. 2 * 86_400 + 3_661: one raw second, a day, an hour, a minute, then one raw second.
    expect(coverSegments(86_399, 2 * 86_400 + 3_661)).toEqual([
      { level: null, from: 86_399, to: 86_400 },
      { level: 86_400, from: 86_400, to: 172_800 },
      { level: 3600, from: 172_800, to: 176_400 },
      { level: 60, from: 176_400, to: 176_460 },
      { level: null, from: 176_460, to: 176_461 },
    ]);
  });

  it('is raw trades alone for a span inside one minute, and empty for an empty span', () => {
    expect(coverSegments(61, 119)).toEqual([{ level: null, from: 61, to: 119 }]);
    expect(coverSegments(100, 100)).toEqual([]);
    expect(coverSegments(100, 50)).toEqual([]);
  });

  it('uses only the levels it is given', () => {
    expect(coverSegments(10, 130, [60])).toEqual([
      { level: null, from: 10, to: 60 },
      { level: 60, from: 60, to: 120 },
      { level: null, from: 120, to: 130 },
    ]);
  });
});

describe('windowSegments, exact values', () => {
  it('moves the end to the next day boundary when the last trade is before it', () => {
    expect(windowSegments(90_000, 93_601, 93_000)).toEqual([{ level: 3600, from: 90_000, to: 172_800 }]);
    expect(windowSegments(90_000, 93_601, null)).toEqual([{ level: 3600, from: 90_000, to: 172_800 }]);
  });

  it('keeps the end when the token has a trade at or after it', () => {
    expect(windowSegments(90_000, 93_601, 93_601)).toEqual([
      { level: 3600, from: 90_000, to: 93_600 },
      { level: null, from: 93_600, to: 93_601 },
    ]);
  });
});

const agg = (a: Partial<SegmentAgg>): SegmentAgg => ({ v: null, vb: null, n: 0, nb: null, h: null, l: null, o: null, c: null, ...a });

describe('foldSegments', () => {
  it('adds volumes and counts, keeps the first open, the last close and the extremes', () => {
    expect(
      foldSegments([
        agg({ v: 10, vb: 4, n: 3, nb: 1, h: 2.5, l: 1, o: 2, c: 1.5 }),
        agg({}),
        agg({ v: 6, vb: 6, n: 2, nb: 2, h: 3, l: 1.25, o: 1.75, c: 2.75 }),
      ]),
    ).toEqual({ volumeUsd: 16, buyVolumeUsd: 10, sellVolumeUsd: 6, trades: 5, buys: 3, sells: 2, open: 2, close: 2.75, high: 3, low: 1 });
  });

  it('gives zeros and null prices for a window without trades', () => {
    expect(foldSegments([agg({}), agg({})])).toEqual({
      volumeUsd: 0,
      buyVolumeUsd: 0,
      sellVolumeUsd: 0,
      trades: 0,
      buys: 0,
      sells: 0,
      open: null,
      close: null,
      high: null,
      low: null,
    });
  });

  it('passes over a segment that counts no trades even if it carries prices', () => {
    expect(foldSegments([agg({ n: 0, o: 9, c: 9, h: 9, l: 9 }), agg({ v: 1, vb: 0, n: 1, nb: 0, h: 4, l: 4, o: 4, c: 4 })])).toMatchObject({
      open: 4,
      high: 4,
      low: 4,
      sells: 1,
    });
  });
});

describe('trailingWindow', () => {
  it('reads (now - seconds, now] as [now - seconds + 1, now + 1)', () => {
    expect(trailingWindow(1_700_000_000, 3600)).toEqual({ from: 1_699_996_401, to: 1_700_000_001 });
  });
});

describe('coverBuckets', () => {
  it("lists each level's bucket starts and the raw edges, in time order", () => {
    const segments = [
      { level: null, from: 3590, to: 3600 },
      { level: 3600, from: 3600, to: 10_800 },
      { level: 60, from: 10_800, to: 10_920 },
      { level: null, from: 10_920, to: 10_930 },
    ];
    expect(coverBuckets([3600, 60], segments)).toEqual({
      buckets: [
        [3600, 7200],
        [10_800, 10_860],
      ],
      raw: [
        [3590, 3600],
        [10_920, 10_930],
      ],
    });
  });

  it('refuses a segment of a level it was not given', () => {
    expect(() => coverBuckets([3600], [{ level: 60, from: 0, to: 60 }])).toThrow('unexpected window cover at level 60');
  });
});

describe('walletCountSource', () => {
  it('counts none without trades, from last times up to now, from the trades past it', () => {
    expect(walletCountSource(100, null)).toBe('none');
    expect(walletCountSource(100, 100)).toBe('lastTimes');
    expect(walletCountSource(100, 101)).toBe('trades');
  });
});
