/**
 * Window statistics on PostgreSQL: the twin of src/store/sqlite/window-repo.ts (same answers for the
 * same calls, each a promise). A window's covering (rollup buckets, raw trades at the ragged
 * edges) is read in one statement, one UNION ALL branch per segment in time order, so a window
 * costs one round trip however many segments it has; foldSegments adds them up as on SQLite.
 * Open and close follow trade order, (block_time, id), written out as on SQLite.
 */
import type { Async } from '../port/async.js';
import type { WindowRepo } from '../port/repos.js';
import { foldSegments, trailingWindow, windowSegments, type SegmentAgg, type WindowStats } from '../../domain/window-cover.js';
import { row, rows, type Queryable } from './pg-repo.js';

/** One rollup segment: $1 is the token; `p` the number of its first parameter (res, from, to). */
const rollupBranch = (i: number, p: number): string => {
  const where = `token_id = $1 AND res = $${p} AND t >= $${p + 1} AND t < $${p + 2}`;
  return `SELECT ${i} AS seg, sqlite_sum(v ORDER BY t) AS v, sqlite_sum(vb ORDER BY t) AS vb, coalesce(sum(n), 0) AS n, sum(nb) AS nb, max(h) AS h, min(l) AS l,
    (SELECT o FROM candles WHERE ${where} ORDER BY t LIMIT 1) AS o,
    (SELECT c FROM candles WHERE ${where} ORDER BY t DESC LIMIT 1) AS c
    FROM candles WHERE ${where}`;
};

/** One raw-trade segment: $1 is the token; `p` the number of its first parameter (from, to). */
const rawBranch = (i: number, p: number): string => {
  const where = `token_id = $1 AND block_time >= $${p} AND block_time < $${p + 1}`;
  return `SELECT ${i} AS seg, sqlite_sum(volume_usd ORDER BY block_time, id) AS v,
    sqlite_sum(CASE WHEN is_buy = 1 THEN volume_usd ELSE 0 END ORDER BY block_time, id) AS vb, count(*) AS n,
    sum(is_buy) AS nb, max(price_usd) AS h, min(price_usd) AS l,
    (SELECT price_usd FROM trades WHERE ${where} ORDER BY block_time, id LIMIT 1) AS o,
    (SELECT price_usd FROM trades WHERE ${where} ORDER BY block_time DESC, id DESC LIMIT 1) AS c
    FROM trades WHERE ${where}`;
};

export type PgWindowRepo = Async<WindowRepo>;

export function createPgWindowRepo(db: Queryable): PgWindowRepo {
  async function between(tokenId: number, from: number, to: number, lastTradeAt: number | null): Promise<WindowStats> {
    const segments = windowSegments(from, to, lastTradeAt);
    if (segments.length === 0) return foldSegments([]);
    const params: unknown[] = [tokenId];
    const branches = segments.map((s, i) => {
      const p = params.length + 1;
      if (s.level === null) {
        params.push(s.from, s.to);
        return rawBranch(i, p);
      }
      params.push(s.level, s.from, s.to);
      return rollupBranch(i, p);
    });
    const aggs = await rows<SegmentAgg & { seg: number }>(db, `${branches.join('\nUNION ALL\n')}\nORDER BY seg`, params);
    return foldSegments(aggs);
  }

  return {
    between,
    window: (tokenId, now, seconds, lastTradeAt) => {
      const { from, to } = trailingWindow(now, seconds);
      return between(tokenId, from, to, lastTradeAt);
    },
    priceAt: async (tokenId, t) =>
      (
        await row<{ p: number }>(db, 'SELECT price_usd AS p FROM trades WHERE token_id = $1 AND block_time <= $2 ORDER BY block_time DESC, id DESC LIMIT 1', [
          tokenId,
          t,
        ])
      )?.p ?? null,
  };
}
