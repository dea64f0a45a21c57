/**
 * Token sets for discovery (docs/api.md, Discovery): the tokens traded since a time, the tokens with
 * trades in a span of time (what changes a window's figures as the clock moves), one token's
 * summary, and the newest tokens. Every read is an index range; window figures come from the
 * window statistics.
 */
import type { Db } from './db.js';
import type { DiscoveryRepo, TokenSummary } from '../port/tokens.js';

// The interface and row types are the port's (src/store/port/tokens.ts), named here too.
export type { DiscoveryRepo, MatchKind, TokenSummary } from '../port/tokens.js';
export { MATCH_KINDS } from '../port/tokens.js';

const SUMMARY = `t.id, t.address, t.symbol, t.name, t.price_usd AS priceUsd, t.circulating_supply AS circulatingSupply,
  t.created_at AS createdAt, t.last_trade_at AS lastTradeAt,
  (SELECT coalesce(sum(m.liquidity_usd), 0) FROM markets m WHERE m.token_id = t.id) AS liquidityUsd`;

export function createDiscoveryRepo(db: Db): DiscoveryRepo {
  const tradedSince = db.prepare<[number], number>('SELECT id FROM tokens WHERE last_trade_at >= ?').pluck();
  const summary = db.prepare<[number], TokenSummary>(`SELECT ${SUMMARY} FROM tokens t WHERE t.id = ?`);
  const newest = db.prepare<[number], TokenSummary>(`SELECT ${SUMMARY} FROM tokens t ORDER BY t.created_at DESC, t.address LIMIT ?`);
  // The minute rollups of markets are keyed by (res, t, token_id, ...): the tokens with trades in
  // a span of minutes are one range. The minute is a superset; the exact check is per token.
  const inMinutes = db.prepare<[number, number], number>('SELECT DISTINCT token_id FROM market_rollups WHERE res = 60 AND t >= ? AND t < ?').pluck();
  const hasTrade = db
    .prepare<[number, number, number], number>('SELECT 1 FROM trades WHERE token_id = ? AND block_time >= ? AND block_time < ? LIMIT 1')
    .pluck();

  return {
    /** Ids of the tokens whose last trade is at or after `since` (index tokens_last_trade). */
    tradedSince: (since: number): number[] => tradedSince.all(since),

    /** Ids of the tokens with a trade at from <= blockTime < to. */
    tradedBetween(from: number, to: number): number[] {
      if (from >= to) return [];
      return inMinutes.all(Math.floor(from / 60) * 60, to).filter((id) => hasTrade.get(id, from, to) !== undefined);
    },

    summary: (id: number): TokenSummary | undefined => summary.get(id),

    /** The `limit` newest tokens by createdAt, ties by address. */
    newest: (limit: number): TokenSummary[] => newest.all(limit),
  };
}
