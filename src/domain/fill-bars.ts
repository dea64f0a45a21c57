/**
 * Bars without gaps (docs/api.md, Bars without gaps: `fill=previous` on candles): every empty
 * bucket after the first bar and before the end of the range becomes a flat bar at the previous
 * close (o = h = l = c = that close, v = 0), as charts that want one bar per bucket draw a quiet
 * market. At most `max` bars come back, the newest kept, and no more than that many buckets are
 * ever walked, so a one-second chart over a year of silence costs what 5000 bars cost.
 */
import type { Bar } from './candles.js';
import { bucketStart, nextBucket, type Resolution } from './resolution.js';

/**
 * `bars` (ascending, one per bucket start, all before `end`) with the empty buckets filled, from the
 * first bar through the last bucket that starts before `end` (never dropping a bar at or after
 * it); the newest `max` of them.
 */
export function fillPrevious(bars: readonly Bar[], res: Resolution, end: number, max: number): Bar[] {
  const firstBar = bars[0];
  const lastBar = bars[bars.length - 1];
  if (firstBar === undefined || lastBar === undefined || max <= 0) return [];
  const last = Math.max(bucketStart(res, end - 1), lastBar.t);
  // The oldest bucket kept: at most max - 1 buckets before the last one, never before the first bar.
  let start = last;
  for (let n = 1; n < max && start > firstBar.t; n++) start = bucketStart(res, start - 1);
  if (start < firstBar.t) start = firstBar.t;
  // The previous close for the first bucket kept: the newest bar at or before it.
  let i = 0;
  while (i + 1 < bars.length && bars[i + 1]!.t <= start) i++;
  let close = bars[i]!.c;
  if (bars[i]!.t < start) i++;
  const out: Bar[] = [];
  for (let t = start; t <= last; t = nextBucket(res, t)) {
    const bar = bars[i];
    if (bar !== undefined && bar.t === t) {
      out.push(bar);
      close = bar.c;
      i++;
    } else out.push({ t, o: close, h: close, l: close, c: close, v: 0 });
  }
  return out;
}
