/**
 * Chart resolutions and their buckets (docs/api.md, Data and ingest). An n-unit bucket starts at a
 * multiple of n units since the epoch; days at 00:00 UTC, weeks on Monday 00:00 UTC, months on
 * the 1st 00:00 UTC.
 */

export type Resolution =
  { key: string; kind: 'fixed'; seconds: number } | { key: '1W'; kind: 'week'; seconds: 604800 } | { key: '1M'; kind: 'month'; seconds: 0 };

/** The resolutions the datafeed lists, in the UDF spelling. */
export const SUPPORTED_RESOLUTIONS = ['1S', '5S', '15S', '30S', '1', '5', '15', '30', '60', '240', '1D', '1W', '1M'] as const;

/**
 * Bucket widths (seconds) kept as rollups at ingest; every resolution is folded from the widest
 * that divides it. 1 s and 15 s bound the seconds resolutions (docs/api.md, Seconds resolutions): a bar reads at
 * most 5 rows (5S from 1 s), 2 (30S from 15 s) or 1, never the raw trades of a busy second.
 */
export const ROLLUP_SECONDS = [1, 15, 60, 900, 3600, 86400] as const;

const DAY = 86400;
/** 1970-01-05 was the first Monday after the epoch. */
const FIRST_MONDAY = 4 * DAY;

const table = new Map<string, Resolution>();
for (const key of SUPPORTED_RESOLUTIONS) {
  if (key === '1W') table.set(key, { key, kind: 'week', seconds: 604800 });
  else if (key === '1M') table.set(key, { key, kind: 'month', seconds: 0 });
  else if (key === '1D') table.set(key, { key, kind: 'fixed', seconds: DAY });
  else if (key.endsWith('S')) table.set(key, { key, kind: 'fixed', seconds: Number(key.slice(0, -1)) });
  else table.set(key, { key, kind: 'fixed', seconds: Number(key) * 60 });
}
table.set('D', table.get('1D')!);
table.set('W', table.get('1W')!);
table.set('M', table.get('1M')!);

/** The resolution for a UDF spelling (`D`, `W`, `M` are aliases), or null when unsupported. */
export function parseResolution(value: string): Resolution | null {
  return table.get(value) ?? null;
}

/** The start of the bucket holding time `t` (unix seconds). */
export function bucketStart(res: Resolution, t: number): number {
  switch (res.kind) {
    case 'fixed':
      return Math.floor(t / res.seconds) * res.seconds;
    case 'week':
      return Math.floor((t - FIRST_MONDAY) / res.seconds) * res.seconds + FIRST_MONDAY;
    case 'month': {
      const d = new Date(t * 1000);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
    }
  }
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucket(res: Resolution, start: number): number {
  if (res.kind !== 'month') return start + res.seconds;
  const d = new Date(start * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

/** The rollup width to build this resolution from: the widest rollup that divides it. */
export function rollupSourceFor(res: Resolution): number {
  if (res.kind !== 'fixed') return DAY;
  let best: number = ROLLUP_SECONDS[0];
  for (const r of ROLLUP_SECONDS) if (res.seconds % r === 0) best = r;
  return best;
}

/** Rollup rows one bar of `res` may fold: the bound on rows a history request reads per bar. */
export function rowsPerBar(res: Resolution): number {
  if (res.kind === 'month') return 31;
  return Math.ceil(res.seconds / rollupSourceFor(res));
}
