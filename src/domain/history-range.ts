/**
 * Which bars a history request asks for (docs/api.md, TradingView UDF datafeed and Token reads),
 * as pure rules shared by /udf/history and /v1/token/:address/candles: the range-or-countback
 * choice, the key under which requests with the same answer share one cached entry, and picking
 * a request's bars from the newest bars of a series held in memory (src/read/history-cache.ts).
 */
import type { Bar } from './candles.js';
import { bucketStart, type Resolution } from './resolution.js';

/** The most bars one answer holds (a larger countback is served as this many). */
export const MAX_BARS = 5000;

/** Bars with t in [from, to), or the `countback` newest bars with t < to. */
export type BarQuery = { mode: 'range'; from: number; to: number } | { mode: 'countback'; to: number; countback: number };

/** Why a request names no bars: `from` missing without a countback, or not before `to`. */
export type BarQueryError = { param: 'from'; problem: 'required' | 'not_before_to' };

/**
 * A positive countback wins and `from` is ignored (clamped to MAX_BARS: the Charting Library asks
 * for more when a user jumps far back, and refusing breaks the chart); without one (absent or
 * 0) the request is the range [from, to), which needs from < to.
 */
export function barQuery(p: { from?: number | undefined; to: number; countback?: number | undefined }): BarQuery | BarQueryError {
  if (p.countback !== undefined && p.countback > 0) return { mode: 'countback', to: p.to, countback: Math.min(p.countback, MAX_BARS) };
  if (p.from === undefined) return { param: 'from', problem: 'required' };
  if (p.from >= p.to) return { param: 'from', problem: 'not_before_to' };
  return { mode: 'range', from: p.from, to: p.to };
}

export const isBarQueryError = (q: BarQuery | BarQueryError): q is BarQueryError => 'problem' in q;

/**
 * A key equal for two queries exactly when they select the same bars of any series whose
 * newest bar starts at `newest` (null: no bars). A bar is selected when t < to, and bar times
 * are bucket starts, so `to` counts only through the bucket of to - 1; a `to` past the newest
 * bar selects up to the newest, whatever its value, so every viewer asking for "up to now"
 * shares one entry while the data stays the same.
 */
export function barQueryKey(res: Resolution, q: BarQuery, newest: number | null): string {
  const upper = newest !== null && q.to > newest ? 'latest' : String(bucketStart(res, q.to - 1));
  return q.mode === 'range' ? `${q.from}-${upper}` : `cb${q.countback}-${upper}`;
}

/** What a query answers: its bars ascending, and for an empty range the newest older bar. */
export type BarAnswer = { bars: Bar[]; nextTime: number | null };

/**
 * The answer of `q` from `known`: ascending, every bar of the series with t >= `lo` (all of
 * them when lo is -Infinity). Null when `known` does not reach back far enough to tell. For an
 * empty range whose older bar lies before `lo`, nextTime is `undefined`: the caller looks it up.
 */
export function pickBars(known: readonly Bar[], lo: number, q: BarQuery): { bars: Bar[]; nextTime: number | null | undefined } | null {
  // The first index whose bar is at or after `to`: bars before it are the ones with t < to.
  let end = known.length;
  while (end > 0 && known[end - 1]!.t >= q.to) end--;
  if (q.mode === 'countback') {
    const start = Math.max(0, end - q.countback);
    // Enough when the countback is met from known bars, or nothing older exists.
    if (end - start < q.countback && lo !== -Infinity) return null;
    return { bars: known.slice(start, end), nextTime: null };
  }
  let start = end;
  while (start > 0 && known[start - 1]!.t >= q.from && end - start < MAX_BARS) start--;
  const full = end - start === MAX_BARS;
  if (!full && q.from < lo) return null;
  if (start < end) return { bars: known.slice(start, end), nextTime: null };
  // Empty: the newest bar before `from`, known only when a known bar lies before it.
  if (start > 0) return { bars: [], nextTime: known[start - 1]!.t };
  return { bars: [], nextTime: lo === -Infinity ? null : undefined };
}
