/** The fold of rollup rows into history bars, its row bounds, and the newest-bar-before bound. */
import { describe, expect, it } from 'vitest';
import { barsBeforeUpper, barStartOf, foldBars, foldBounds, foldLimit } from '../../src/domain/bar-fold.js';
import { parseResolution, type Resolution } from '../../src/domain/resolution.js';

const R5 = parseResolution('5')!; // 5-minute bars folded from 1-minute rollups
const R1D = parseResolution('1D')!;
const R1M = parseResolution('1M')!;

/** 1-minute rollups [t, o, h, l, c, v], oldest first; the fold takes them newest first. */
const ROWS: number[][] = [
  [600, 1, 2, 1, 2, 10],
  [660, 2, 3, 2, 3, 1],
  [900, 4, 5, 4, 4, 2],
  [1140, 4, 6, 3, 5, 3],
  [1200, 5, 5, 5, 5, 4],
];

/** Serves the rows in [lower, upper) newest first, and records what was asked. */
function source(rows: number[][]) {
  const asked: [number, number][] = [];
  return {
    asked,
    rows: (lower: number, upper: number) => {
      asked.push([lower, upper]);
      return rows.filter((r) => r[0]! >= lower && r[0]! < upper).reverse();
    },
  };
}

describe('foldBounds', () => {
  it('reads a countback from the first rollup up to the end of the bucket holding to - 1', () => {
    expect(foldBounds(R5, { mode: 'countback', to: 1201, countback: 2 })).toEqual({ lower: -1, upper: 1500 });
    expect(foldBounds(R5, { mode: 'countback', to: 1200, countback: 2 })).toEqual({ lower: -1, upper: 1200 });
  });

  it('reads a range from the bucket of from', () => {
    expect(foldBounds(R5, { mode: 'range', from: 700, to: 1000 })).toEqual({ lower: 600, upper: 1200 });
  });
});

describe('foldLimit', () => {
  it('is the bars wanted times the rows of a bar, plus one', () => {
    expect(foldLimit(R5, { mode: 'countback', to: 1, countback: 3 })).toBe(16);
    expect(foldLimit(R5, { mode: 'countback', to: 1, countback: 9000 })).toBe(25_001);
    expect(foldLimit(R1D, { mode: 'range', from: 0, to: 1 })).toBe(5001);
    expect(foldLimit(R1M, { mode: 'countback', to: 1, countback: 2 })).toBe(63);
  });
});

describe('foldBars', () => {
  it('folds rows into ascending bars, each bucket once', () => {
    const src = source(ROWS);
    const stats = { rows: 0 };
    expect(foldBars(R5, { mode: 'range', from: 0, to: 1500 }, src.rows, stats)).toEqual([
      { t: 600, o: 1, h: 3, l: 1, c: 3, v: 11 },
      { t: 900, o: 4, h: 6, l: 3, c: 5, v: 5 },
      { t: 1200, o: 5, h: 5, l: 5, c: 5, v: 4 },
    ]);
    expect(src.asked).toEqual([[0, 1500]]);
    expect(stats.rows).toBe(5);
  });

  it('stops reading once the countback is complete and a row of an older bucket arrives', () => {
    const stats = { rows: 0 };
    expect(foldBars(R5, { mode: 'countback', to: 1500, countback: 2 }, source(ROWS).rows, stats)).toEqual([
      { t: 900, o: 4, h: 6, l: 3, c: 5, v: 5 },
      { t: 1200, o: 5, h: 5, l: 5, c: 5, v: 4 },
    ]);
    expect(stats.rows).toBe(4);
  });

  it('keeps the rows of the newest bucket at or after `to`, and drops bars before a range', () => {
    expect(foldBars(R5, { mode: 'range', from: 700, to: 901 }, source(ROWS).rows)).toEqual([{ t: 900, o: 4, h: 6, l: 3, c: 5, v: 5 }]);
  });

  it('answers no bars where there are no rows', () => {
    const stats = { rows: 7 };
    expect(foldBars(R5, { mode: 'countback', to: 600, countback: 5 }, source(ROWS).rows, stats)).toEqual([]);
    expect(stats.rows).toBe(0);
  });
});

describe('barsBeforeUpper and barStartOf', () => {
  const res: Resolution = R5;
  it('bounds the rows of bars that start before `before`, and names the bar of the newest one', () => {
    expect(barsBeforeUpper(res, 901)).toBe(1200);
    expect(barsBeforeUpper(res, 900)).toBe(900);
    expect(barStartOf(res, 1140)).toBe(900);
    expect(barStartOf(res, null)).toBeNull();
    expect(barStartOf(res, undefined)).toBeNull();
  });
});
