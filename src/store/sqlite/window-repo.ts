/**
 * The SQL of window statistics: one read per segment of a window's covering (rollup buckets or,
 * at the ragged edges, raw trades), added up by foldSegments (src/domain/window-cover.ts).
 */
import type { Db } from './db.js';
import { foldSegments, trailingWindow, windowSegments, type SegmentAgg, type WindowStats } from '../../domain/window-cover.js';

import type { WindowRepo } from '../port/market.js';

// The interface and row types are the port's (src/store/port/market.ts), named here too.
export type { WindowRepo, WindowStats } from '../port/market.js';

export function createWindowRepo(db: Db): WindowRepo {
  // One statement per segment (aggregates, open and close together): a window has a handful of
  // segments and discovery reads one window per traded token, so statements count.
  const rollupAgg = db.prepare<[{ tokenId: number; res: number; from: number; to: number }], SegmentAgg>(
    `SELECT sum(v) AS v, sum(vb) AS vb, coalesce(sum(n), 0) AS n, sum(nb) AS nb, max(h) AS h, min(l) AS l,
            (SELECT o FROM candles WHERE token_id = @tokenId AND res = @res AND t >= @from AND t < @to ORDER BY t LIMIT 1) AS o,
            (SELECT c FROM candles WHERE token_id = @tokenId AND res = @res AND t >= @from AND t < @to ORDER BY t DESC LIMIT 1) AS c
     FROM candles WHERE token_id = @tokenId AND res = @res AND t >= @from AND t < @to`,
  );
  const rawAgg = db.prepare<[{ tokenId: number; from: number; to: number }], SegmentAgg>(
    `SELECT sum(volume_usd) AS v, sum(CASE WHEN is_buy = 1 THEN volume_usd ELSE 0 END) AS vb, count(*) AS n,
            sum(is_buy) AS nb, max(price_usd) AS h, min(price_usd) AS l,
            (SELECT price_usd FROM trades WHERE token_id = @tokenId AND block_time >= @from AND block_time < @to ORDER BY block_time, id LIMIT 1) AS o,
            (SELECT price_usd FROM trades WHERE token_id = @tokenId AND block_time >= @from AND block_time < @to ORDER BY block_time DESC, id DESC LIMIT 1) AS c
     FROM trades WHERE token_id = @tokenId AND block_time >= @from AND block_time < @to`,
  );
  const priceAt = db
    .prepare<[number, number], number>('SELECT price_usd FROM trades WHERE token_id = ? AND block_time <= ? ORDER BY block_time DESC, id DESC LIMIT 1')
    .pluck();

  /** Statistics of the trades with from <= blockTime < to; `lastTradeAt` is the token's newest trade time. */
  function between(tokenId: number, from: number, to: number, lastTradeAt: number | null): WindowStats {
    return foldSegments(
      windowSegments(from, to, lastTradeAt).map(({ level, from, to }) =>
        level === null ? rawAgg.get({ tokenId, from, to })! : rollupAgg.get({ tokenId, res: level, from, to })!,
      ),
    );
  }

  return {
    between,
    /** Statistics of the window (now - seconds, now] of a token whose newest trade is at `lastTradeAt`. */
    window: (tokenId: number, now: number, seconds: number, lastTradeAt: number | null): WindowStats => {
      const { from, to } = trailingWindow(now, seconds);
      return between(tokenId, from, to, lastTradeAt);
    },
    /** The price of the last trade at or before `t` (the base price of a window), or null. */
    priceAt: (tokenId: number, t: number): number | null => priceAt.get(tokenId, t) ?? null,
  };
}
