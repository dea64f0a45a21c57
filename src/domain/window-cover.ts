/**
 * Covering a time window with rollup buckets (docs/architecture.md, The store and what stays
 * exact): a window [from, to) is split into the widest rollup buckets that fit inside it, then
 * narrower ones at its edges, then raw trades for what is left (less than a minute at each end),
 * so a 24 h window reads a few dozen rows however busy the token. The store reads each segment;
 * `foldSegments` adds their figures up.
 */

import type { TradeTotals } from './windows.js';

/** Exact statistics of a token's trades in a time window. */
export type WindowStats = TradeTotals & {
  /** First and last trade prices in the window (trade order), null without trades. */
  open: number | null;
  close: number | null;
  high: number | null;
  low: number | null;
};

/** Rollup widths used to cover windows, widest first. */
export const WINDOW_LEVELS = [86400, 3600, 60] as const;

/** A piece of a window: a run of rollup buckets of width `level`, or raw trades when null. */
export type Segment = { level: number | null; from: number; to: number };

/** Splits [from, to) into rollup-aligned segments, in time order. */
export function coverSegments(from: number, to: number, levels: readonly number[] = WINDOW_LEVELS): Segment[] {
  if (from >= to) return [];
  const [level, ...finer] = levels;
  if (level === undefined) return [{ level: null, from, to }];
  const first = Math.ceil(from / level) * level;
  const last = Math.floor(to / level) * level;
  if (first >= last) return coverSegments(from, to, finer);
  return [...coverSegments(from, first, finer), { level, from: first, to: last }, ...coverSegments(last, to, finer)];
}

/**
 * The segments to read for a token's trades with from <= blockTime < to, given the token's newest
 * trade time. Windows end now and a token has no trades after now, so the end usually lies past
 * the last trade; it then moves on to the next boundary of the widest level. That adds only
 * empty buckets, and the newest trades (the busiest part of a live token) are read from the
 * rollups instead of from raw trades and narrow buckets.
 */
export function windowSegments(from: number, to: number, lastTradeAt: number | null, levels: readonly number[] = WINDOW_LEVELS): Segment[] {
  const widest = levels[0];
  const pastLastTrade = lastTradeAt === null || lastTradeAt < to;
  return coverSegments(from, pastLastTrade && widest !== undefined ? Math.ceil(to / widest) * widest : to, levels);
}

/**
 * One segment's figures as SQL sums give them (null where a sum is over no rows); open and close
 * are its first and last prices in trade order.
 */
export type SegmentAgg = {
  v: number | null;
  vb: number | null;
  n: number;
  nb: number | null;
  h: number | null;
  l: number | null;
  o: number | null;
  c: number | null;
};

/** Adds up the figures of a window's segments, given in time order. */
export function foldSegments(aggs: Iterable<SegmentAgg>): WindowStats {
  const s: WindowStats = { volumeUsd: 0, buyVolumeUsd: 0, sellVolumeUsd: 0, trades: 0, buys: 0, sells: 0, open: null, close: null, high: null, low: null };
  for (const a of aggs) {
    if (a.n === 0) continue;
    s.volumeUsd += a.v ?? 0;
    s.buyVolumeUsd += a.vb ?? 0;
    s.trades += a.n;
    s.buys += a.nb ?? 0;
    if (s.open === null) s.open = a.o;
    s.close = a.c ?? s.close;
    if (a.h !== null && (s.high === null || a.h > s.high)) s.high = a.h;
    if (a.l !== null && (s.low === null || a.l < s.low)) s.low = a.l;
  }
  s.sellVolumeUsd = s.volumeUsd - s.buyVolumeUsd;
  s.sells = s.trades - s.buys;
  return s;
}

/** The window (now - seconds, now] as the half-open block-time range [from, to) the store reads. */
export const trailingWindow = (now: number, seconds: number): { from: number; to: number } => ({ from: now - seconds + 1, to: now + 1 });

/**
 * A window's covering as reads: per level (in `levels`' order) the start of every bucket to read,
 * and the raw-trade ranges [from, to) at the ragged edges, in time order. Throws on a segment at
 * a level not in `levels` (the covering was made with other levels).
 */
export function coverBuckets(levels: readonly number[], segments: readonly Segment[]): { buckets: number[][]; raw: [number, number][] } {
  const buckets = levels.map((): number[] => []);
  const raw: [number, number][] = [];
  for (const seg of segments) {
    if (seg.level === null) {
      raw.push([seg.from, seg.to]);
      continue;
    }
    const list = buckets[levels.indexOf(seg.level)];
    if (list === undefined) throw new Error(`unexpected window cover at level ${seg.level}`);
    for (let t = seg.from; t < seg.to; t += seg.level) list.push(t);
  }
  return { buckets, raw };
}

/**
 * How the wallets of the window (now - seconds, now] are counted: none without trades; from each
 * wallet's last trade time while no trade is newer than `now` (exact then); else from the trades.
 */
export const walletCountSource = (now: number, lastTradeAt: number | null): 'none' | 'lastTimes' | 'trades' =>
  lastTradeAt === null ? 'none' : lastTradeAt > now ? 'trades' : 'lastTimes';
