/**
 * Where a page of a token's trades starts (docs/api.md, Token reads): trades run newest first in
 * trade order (blockTime, id), and a page returns those strictly before its start position. Pure:
 * every engine's trades repo seeks its index from this position.
 */

/** A keyset position in trade order. */
export type TradePoint = { blockTime: number; id: number };

/** Before every trade (times are at most year 9999, far below this). */
const TOP: TradePoint = { blockTime: 2 ** 48 - 1, id: 0 };

/**
 * The start of a page: after the cursor's position when there is one, else before `before` (a
 * position too: every trade with blockTime < before comes before (before, 0), since ids start at
 * 1), else before every trade. A cursor's position already lies inside the range.
 */
export const pageStart = (after: TradePoint | null, before: number | null | undefined): TradePoint =>
  after ?? (before != null ? { blockTime: before, id: 0 } : TOP);
