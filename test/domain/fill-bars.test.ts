/**
 * fill=previous (docs/api.md, Bars without gaps) against a naive fill: every bucket from the first
 * bar on, one at a time, through the last bucket before the end, then the newest `max`. The naive
 * fill walks buckets with its own Date arithmetic, so a bug in src/domain/resolution.ts cannot hide
 * in both.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fillPrevious } from '../../src/domain/fill-bars.js';
import { parseResolution, type Resolution } from '../../src/domain/resolution.js';
import type { Bar } from '../../src/domain/candles.js';
import { refBucket } from '../udf/support.js';

const res = (key: string): Resolution => parseResolution(key)!;
const bar = (t: number, c: number, v = 1): Bar => ({ t, o: c, h: c, l: c, c, v });

const WIDTH: Record<string, number> = { '1S': 1, '5S': 5, '1': 60, '15': 900, '60': 3600, '240': 14400, '1D': 86400, '1W': 604800 };

/** The bucket after the one starting at `t`, the plain way: a calendar month, or a fixed width later. */
function naiveNext(key: string, t: number): number {
  if (key !== '1M') return t + WIDTH[key]!;
  const d = new Date(t * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

function naiveFill(bars: readonly Bar[], key: string, end: number, max: number): Bar[] {
  if (bars.length === 0) return [];
  const byT = new Map(bars.map((b) => [b.t, b]));
  const out: Bar[] = [];
  let close = bars[0]!.c;
  for (let t = bars[0]!.t; t < end || t <= bars.at(-1)!.t; t = naiveNext(key, t)) {
    const b = byT.get(t);
    if (b !== undefined) {
      out.push(b);
      close = b.c;
    } else out.push({ t, o: close, h: close, l: close, c: close, v: 0 });
  }
  return out.slice(-max);
}

describe('fillPrevious', () => {
  it('fills the empty buckets after the first bar with the previous close and no volume, up to the end', () => {
    const bars = [bar(60, 2, 5), bar(240, 3, 7)];
    expect(fillPrevious(bars, res('1'), 420, 5000)).toEqual([bar(60, 2, 5), bar(120, 2, 0), bar(180, 2, 0), bar(240, 3, 7), bar(300, 3, 0), bar(360, 3, 0)]);
  });

  it('keeps the newest max buckets, each empty one at the close before it, however long the silence', () => {
    // One bar a year before the end at 1S: 31 million buckets, of which only the newest 3 are built.
    const year = 365 * 86400;
    const out = fillPrevious([bar(1_700_000_000 - year, 4), bar(1_700_000_000 - 2, 5)], res('1S'), 1_700_000_001, 3);
    expect(out).toEqual([bar(1_699_999_998, 5), bar(1_699_999_999, 5, 0), bar(1_700_000_000, 5, 0)]);
    expect(fillPrevious([bar(0, 4)], res('1S'), 1_000_000_000, 2)).toEqual([bar(999_999_998, 4, 0), bar(999_999_999, 4, 0)]);
  });

  it('walks calendar months, whatever their length', () => {
    const jan = Date.UTC(2024, 0, 1) / 1000;
    const mar = Date.UTC(2024, 2, 1) / 1000;
    const feb = Date.UTC(2024, 1, 1) / 1000;
    expect(fillPrevious([bar(jan, 1), bar(mar, 2)], res('1M'), mar + 1, 5000)).toEqual([bar(jan, 1), bar(feb, 1, 0), bar(mar, 2)]);
  });

  it('answers nothing without bars, and never drops a bar at or after the end', () => {
    expect(fillPrevious([], res('15'), 10_000, 5000)).toEqual([]);
    expect(fillPrevious([bar(900, 1), bar(2700, 2)], res('15'), 1000, 5000)).toEqual([bar(900, 1), bar(1800, 1, 0), bar(2700, 2)]);
  });

  it('equals the naive fill on random bars, resolutions, ends and bounds', () => {
    const keys = ['1S', '5S', '1', '15', '60', '240', '1D', '1W', '1M'] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...keys),
        fc.integer({ min: 1_600_000_000, max: 1_700_000_000 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 120 }), { minLength: 0, maxLength: 25 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 200 }),
        (key, origin, slots, tail, max) => {
          const r = res(key);
          const w = WIDTH[key] ?? 2_678_400;
          // Bars at bucket starts of times spread over about 120 buckets, with their own closes.
          const times = [...new Set(slots.map((s) => refBucket(key, origin + s * w)))].sort((a, b) => a - b);
          const bars = times.map((t, i) => ({ t, o: i + 1, h: i + 3, l: i, c: i + 2, v: i + 0.5 }));
          const end = (times.at(-1) ?? origin) + tail * w + 1;
          expect(fillPrevious(bars, r, end, max)).toEqual(naiveFill(bars, key, end, max));
        },
      ),
      { numRuns: 400 },
    );
  });
});
