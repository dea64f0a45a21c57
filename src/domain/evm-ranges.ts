/**
 * How the indexer paces itself against a node (docs/indexer.md, RPC cost and faults): the span of
 * the next `eth_getLogs` (halved when the node refuses a range, grown back after successes, never
 * above `maxBlockRange`), and the wait before retrying a failed call (doubling, at most 60 s,
 * never less than a `Retry-After` the node sent).
 */

export type RangeState = { span: number; max: number; successes: number };

/** The successes in a row after which a halved span doubles again. */
export const GROW_AFTER = 4;

export function initialRange(maxBlockRange: number): RangeState {
  return { span: maxBlockRange, max: maxBlockRange, successes: 0 };
}

/** The node refused the span as too large: halve it, down to one block. */
export function refused(s: RangeState): RangeState {
  return { span: Math.max(1, Math.floor(s.span / 2)), max: s.max, successes: 0 };
}

/** A span was answered: after GROW_AFTER in a row, double it again, up to max. */
export function answered(s: RangeState): RangeState {
  const successes = s.successes + 1;
  if (successes < GROW_AFTER || s.span >= s.max) return { ...s, successes: s.span >= s.max ? 0 : successes };
  return { span: Math.min(s.max, s.span * 2), max: s.max, successes: 0 };
}

/** The next range from `from` up to at most `to` (inclusive), or null when from > to. */
export function nextRange(s: RangeState, from: number, to: number): { from: number; to: number } | null {
  if (from > to) return null;
  return { from, to: Math.min(to, from + s.span - 1) };
}

export const MAX_BACKOFF_MS = 60_000;
export const FIRST_BACKOFF_MS = 250;

/**
 * The wait before retry `attempt` (0 = the first retry): 250 ms doubling, at most 60 s, and at
 * least the node's `Retry-After` (also capped at 60 s, so a bad header cannot stall a chain).
 */
export function backoffMs(attempt: number, retryAfterMs: number | null = null): number {
  const doubled = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(attempt, 20));
  return retryAfterMs === null ? doubled : Math.min(MAX_BACKOFF_MS, Math.max(doubled, retryAfterMs));
}

/** A `Retry-After` header in milliseconds (seconds or an HTTP date, relative to `nowMs`), or null. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
