/**
 * Folding stored rollup rows into the bars of a history read (docs/api.md, Seconds resolutions):
 * which rows a query may read, at most how many the fold can use, the fold itself, and the
 * bound of "the newest bar before t". Both engines' token and market candle repos read their
 * rows with their own SQL and give them to these rules, so every engine answers the same bars.
 */
import { DescendingBarBuilder, type Bar } from './candles.js';
import { MAX_BARS, type BarQuery } from './history-range.js';
import { bucketStart, nextBucket, rowsPerBar, type Resolution } from './resolution.js';

/** Below every bucket start: a countback query reads back to the first rollup. */
const NEG_INF = -1;

/** The rollup rows a query folds: t in [lower, upper), read newest first. */
export type FoldBounds = { lower: number; upper: number };

/** The bars a query wants at most (a countback clamped to MAX_BARS). */
const wanted = (q: BarQuery): number => (q.mode === 'countback' ? Math.min(q.countback, MAX_BARS) : MAX_BARS);

/**
 * The rows of `q` at `res`: the newest bar is the bucket holding to - 1, and all of its rows
 * count, even those at or after `to`; a range starts at the bucket of `from`.
 */
export function foldBounds(res: Resolution, q: BarQuery): FoldBounds {
  return { lower: q.mode === 'range' ? bucketStart(res, q.from) : NEG_INF, upper: nextBucket(res, bucketStart(res, q.to - 1)) };
}

/**
 * The most rollup rows foldBars() reads for `q` at `res`: the bars wanted times the rows a bar may
 * hold, plus the row that shows the last bar complete. An engine that fetches rows in one
 * statement (PostgreSQL) limits it by this.
 */
export const foldLimit = (res: Resolution, q: BarQuery): number => wanted(q) * rowsPerBar(res) + 1;

/**
 * Folds rollup rows into the bars of a query: `rows(lower, upper)` yields [t, o, h, l, c, v] of
 * the rollup width for `res`, t in [lower, upper) (foldBounds), newest first. Bars ascending,
 * each t in the query's window, at most MAX_BARS (the newest kept). `stats`, when given,
 * receives the number of rows read.
 */
export function foldBars(res: Resolution, q: BarQuery, rows: (lower: number, upper: number) => Iterable<readonly number[]>, stats?: { rows: number }): Bar[] {
  const want = wanted(q);
  const { lower, upper } = foldBounds(res, q);
  const builder = new DescendingBarBuilder();
  // The bar being built is complete once a row of an older bucket arrives, so stop when
  // `want` bars are complete and the next row starts another bucket.
  let read = 0;
  for (const row of rows(lower, upper)) {
    read++;
    const bucket = bucketStart(res, row[0]!);
    if (builder.completed === want - 1 && builder.currentBucket !== null && builder.currentBucket !== bucket) {
      break;
    }
    builder.add(bucket, row[1]!, row[2]!, row[3]!, row[4]!, row[5]!);
  }
  if (stats !== undefined) stats.rows = read;
  let bars = builder.finish();
  if (q.mode === 'range') bars = bars.filter((b) => b.t >= q.from);
  return bars.length > want ? bars.slice(bars.length - want) : bars;
}

/** Rollup rows before this t belong to bars that start before `before` (the newest-bar-before read). */
export const barsBeforeUpper = (res: Resolution, before: number): number => nextBucket(res, bucketStart(res, before - 1));

/** The bar holding the newest rollup row found below barsBeforeUpper(), or null when none was. */
export const barStartOf = (res: Resolution, t: number | null | undefined): number | null => (t === null || t === undefined ? null : bucketStart(res, t));
