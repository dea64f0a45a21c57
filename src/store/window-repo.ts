/**
 * Exact statistics of a token's trades in a time window, read from the candle rollups with raw
 * trades only at the ragged edges. A window (now - w, now] is split into the widest rollup
 * buckets that fit inside it, then narrower ones at its edges, then raw trades for what is left
 * (less than a minute at each end), so a 24 h window reads a few dozen rows however busy the token.
 */
import type { Db } from './db.js';

export type WindowStats = {
  volumeUsd: number;
  buyVolumeUsd: number;
  sellVolumeUsd: number;
  trades: number;
  buys: number;
  sells: number;
  /** First and last trade prices in the window (trade order), null without trades. */
  open: number | null;
  close: number | null;
  high: number | null;
  low: number | null;
};

/** Rollup widths used to cover windows, widest first. */
const LEVELS = [86400, 3600, 60] as const;

export type Segment = { level: number | null; from: number; to: number };

/** Splits [from, to) into rollup-aligned segments, in time order. */
export function coverSegments(from: number, to: number, levels: readonly number[] = LEVELS): Segment[] {
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
export function windowSegments(from: number, to: number, lastTradeAt: number | null, levels: readonly number[] = LEVELS): Segment[] {
  const widest = levels[0];
  const pastLastTrade = lastTradeAt === null || lastTradeAt < to;
  return coverSegments(from, pastLastTrade && widest !== undefined ? Math.ceil(to / widest) * widest : to, levels);
}

/** One segment's figures; open and close are its first and last prices in trade order. */
type Agg = { v: number | null; vb: number | null; n: number; nb: number | null; h: number | null; l: number | null; o: number | null; c: number | null };

export function createWindowRepo(db: Db) {
  // One statement per segment (aggregates, open and close together): a window has a handful of
  // segments and discovery reads one window per traded token, so statements count.
  const rollupAgg = db.prepare<[{ tokenId: number; res: number; from: number; to: number }], Agg>(
    `SELECT sum(v) AS v, sum(vb) AS vb, coalesce(sum(n), 0) AS n, sum(nb) AS nb, max(h) AS h, min(l) AS l,
            (SELECT o FROM candles WHERE token_id = @tokenId AND res = @res AND t >= @from AND t < @to ORDER BY t LIMIT 1) AS o,
            (SELECT c FROM candles WHERE token_id = @tokenId AND res = @res AND t >= @from AND t < @to ORDER BY t DESC LIMIT 1) AS c
     FROM candles WHERE token_id = @tokenId AND res = @res AND t >= @from AND t < @to`,
  );
  const rawAgg = db.prepare<[{ tokenId: number; from: number; to: number }], Agg>(
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
    const s: WindowStats = { volumeUsd: 0, buyVolumeUsd: 0, sellVolumeUsd: 0, trades: 0, buys: 0, sells: 0, open: null, close: null, high: null, low: null };
    for (const seg of windowSegments(from, to, lastTradeAt)) {
      const { from, to } = seg;
      const a = seg.level === null ? rawAgg.get({ tokenId, from, to })! : rollupAgg.get({ tokenId, res: seg.level, from, to })!;
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

  return {
    between,
    /** Statistics of the window (now - seconds, now] of a token whose newest trade is at `lastTradeAt`. */
    window: (tokenId: number, now: number, seconds: number, lastTradeAt: number | null): WindowStats =>
      between(tokenId, now - seconds + 1, now + 1, lastTradeAt),
    /** The price of the last trade at or before `t` (the base price of a window), or null. */
    priceAt: (tokenId: number, t: number): number | null => priceAt.get(tokenId, t) ?? null,
  };
}

export type WindowRepo = ReturnType<typeof createWindowRepo>;
