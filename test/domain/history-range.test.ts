/**
 * The pure rules of history requests (src/domain/history-range.ts): the range-or-countback
 * choice, the key shared by requests that select the same bars, and picking bars from the
 * newest bars of a series (checked against a plain filter of the whole series).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { barQuery, barQueryKey, isBarQueryError, pickBars, MAX_BARS, type BarQuery } from '../../src/domain/history-range.js';
import { parseResolution } from '../../src/domain/resolution.js';
import type { Bar } from '../../src/domain/candles.js';

const minute = parseResolution('1')!;
const bar = (t: number): Bar => ({ t, o: t, h: t, l: t, c: t, v: 1 });

describe('barQuery', () => {
  it('takes a positive countback over from, clamped to 5000', () => {
    expect(barQuery({ from: 50, to: 100, countback: 3 })).toEqual({ mode: 'countback', to: 100, countback: 3 });
    expect(barQuery({ to: 100, countback: 9000 })).toEqual({ mode: 'countback', to: 100, countback: MAX_BARS });
  });

  it('reads a countback of 0 or none as the range [from, to)', () => {
    expect(barQuery({ from: 50, to: 100, countback: 0 })).toEqual({ mode: 'range', from: 50, to: 100 });
    expect(barQuery({ from: 99, to: 100 })).toEqual({ mode: 'range', from: 99, to: 100 });
  });

  it('names the problem with from: missing, or not before to', () => {
    expect(barQuery({ to: 100 })).toEqual({ param: 'from', problem: 'required' });
    expect(barQuery({ from: 100, to: 100, countback: 0 })).toEqual({ param: 'from', problem: 'not_before_to' });
    expect(isBarQueryError(barQuery({ from: 101, to: 100 }))).toBe(true);
    expect(isBarQueryError(barQuery({ from: 1, to: 100 }))).toBe(false);
  });
});

describe('barQueryKey', () => {
  it('is one key for every `to` past the newest bar, and another at or before it', () => {
    const q = (to: number): BarQuery => ({ mode: 'countback', to, countback: 300 });
    expect(barQueryKey(minute, q(1_000_000), 600)).toBe('cb300-latest');
    expect(barQueryKey(minute, q(601), 600)).toBe('cb300-latest');
    expect(barQueryKey(minute, q(600), 600)).toBe('cb300-540');
    expect(barQueryKey(minute, q(541), 600)).toBe('cb300-540');
    expect(barQueryKey(minute, q(540), 600)).toBe('cb300-480');
  });

  it('keeps from and the countback apart, and reads no bars as nothing past', () => {
    expect(barQueryKey(minute, { mode: 'range', from: 7, to: 200 }, 120)).toBe('7-latest');
    expect(barQueryKey(minute, { mode: 'range', from: 7, to: 200 }, null)).toBe('7-180');
    expect(barQueryKey(minute, { mode: 'countback', to: 200, countback: 2 }, null)).toBe('cb2-180');
  });
});

describe('pickBars', () => {
  const series = [60, 120, 180, 300, 600].map(bar);

  it('answers from the whole series, with the newest older bar for an empty range', () => {
    expect(pickBars(series, -Infinity, { mode: 'countback', to: 301, countback: 2 })).toEqual({ bars: [bar(180), bar(300)], nextTime: null });
    expect(pickBars(series, -Infinity, { mode: 'range', from: 400, to: 500 })).toEqual({ bars: [], nextTime: 300 });
    expect(pickBars(series, -Infinity, { mode: 'range', from: 0, to: 60 })).toEqual({ bars: [], nextTime: null });
    expect(pickBars([], -Infinity, { mode: 'countback', to: 60, countback: 5 })).toEqual({ bars: [], nextTime: null });
  });

  it('says when the kept bars do not reach back far enough, or the older bar is not kept', () => {
    const kept = series.slice(2); // every bar from 180 on
    expect(pickBars(kept, 180, { mode: 'countback', to: 700, countback: 3 })).toEqual({ bars: [bar(180), bar(300), bar(600)], nextTime: null });
    expect(pickBars(kept, 180, { mode: 'countback', to: 700, countback: 4 })).toBeNull();
    expect(pickBars(kept, 180, { mode: 'range', from: 179, to: 700 })).toBeNull();
    expect(pickBars(kept, 150, { mode: 'range', from: 150, to: 170 })).toEqual({ bars: [], nextTime: undefined });
  });

  it('equals filtering the whole series whenever it answers', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: -10, max: 420 }),
        fc.integer({ min: -10, max: 420 }),
        fc.integer({ min: 0, max: 70 }),
        (times, cut, a, b, countback) => {
          const all = [...times].sort((x, y) => x - y).map(bar);
          const lo = cut >= all.length ? Infinity : cut === 0 ? -Infinity : all[cut]!.t;
          const kept = all.filter((x) => x.t >= lo);
          const q: BarQuery =
            countback > 0 ? { mode: 'countback', to: Math.max(a, b), countback } : { mode: 'range', from: Math.min(a, b), to: Math.max(a, b) + 1 };
          const got = pickBars(kept, lo, q);
          if (got === null) return;
          const before = all.filter((x) => x.t < q.to);
          const want = q.mode === 'countback' ? before.slice(-q.countback) : before.filter((x) => x.t >= q.from).slice(-MAX_BARS);
          expect(got.bars).toEqual(want);
          if (q.mode === 'range' && want.length === 0 && got.nextTime !== undefined) {
            expect(got.nextTime).toBe(all.filter((x) => x.t < q.from).at(-1)?.t ?? null);
          }
        },
      ),
    );
  });
});
