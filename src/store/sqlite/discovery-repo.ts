/**
 * Token sets for discovery (docs/api.md, Discovery): the tokens traded since a time, the tokens with
 * trades in a span of time (what changes a window's figures as the clock moves), one token's
 * summary, and the newest tokens. Every read is an index range; window figures come from the
 * window statistics.
 */
import type { Db } from './db.js';
import type { ChainCounts, ChainKeys, DiscoveryRepo, TokenSummary } from '../port/tokens.js';

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
  // One chain's newest (docs/chains.md): the walk of tokens_created skips other chains' keys.
  const newestIn = db.prepare<{ from: string; to: string; limit: number }, TokenSummary>(
    // The chain's newest picked from its key range first, so only they get a summary (the range is sorted, not the summaries).
    `SELECT ${SUMMARY} FROM tokens t WHERE t.id IN (
       SELECT id FROM tokens WHERE address >= @from AND address < @to ORDER BY created_at DESC, address LIMIT @limit
     ) ORDER BY t.created_at DESC, t.address`,
  );
  const newestPlain = db.prepare<{ limit: number }, TokenSummary>(
    `SELECT ${SUMMARY} FROM tokens t WHERE instr(t.address, ':') = 0 ORDER BY t.created_at DESC, t.address LIMIT @limit`,
  );
  // A chain's keys are one range of the tokens' and markets' unique address indexes. Its trades
  // are the trade counts of its tokens' day candles (a row per token and day, never one per
  // trade: a chain of millions of trades is counted in thousands of rows, and a recount follows
  // every ingest; CROSS JOIN keeps the walk on the tokens). The default chain's keys (no colon) are not a range: its tokens and markets
  // are a walk of those indexes, its newest trade the first of its tokens down tokens_last_trade.
  type Range = { from: string; to: string };
  const inRange = {
    tokens: db.prepare<Range, number>('SELECT count(*) FROM tokens WHERE address >= @from AND address < @to').pluck(),
    markets: db.prepare<Range, number>('SELECT count(*) FROM markets WHERE address >= @from AND address < @to').pluck(),
    trades: db
      .prepare<Range, number>(
        'SELECT coalesce(sum(c.n), 0) FROM tokens t CROSS JOIN candles c ON c.token_id = t.id AND c.res = 86400 WHERE t.address >= @from AND t.address < @to',
      )
      .pluck(),
    lastTradeAt: db.prepare<Range, number | null>('SELECT max(last_trade_at) FROM tokens WHERE address >= @from AND address < @to').pluck(),
  };
  const inPlain = {
    tokens: db.prepare<[], number>("SELECT count(*) FROM tokens WHERE instr(address, ':') = 0").pluck(),
    markets: db.prepare<[], number>("SELECT count(*) FROM markets WHERE instr(address, ':') = 0").pluck(),
    trades: db
      .prepare<[], number>(
        "SELECT coalesce(sum(c.n), 0) FROM tokens t CROSS JOIN candles c ON c.token_id = t.id AND c.res = 86400 WHERE instr(t.address, ':') = 0",
      )
      .pluck(),
    lastTradeAt: db
      .prepare<[], number>("SELECT last_trade_at FROM tokens WHERE last_trade_at IS NOT NULL AND instr(address, ':') = 0 ORDER BY last_trade_at DESC LIMIT 1")
      .pluck(),
  };
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
    newest: (limit: number, keys?: ChainKeys): TokenSummary[] =>
      keys === undefined ? newest.all(limit) : keys === 'plain' ? newestPlain.all({ limit }) : newestIn.all({ ...keys, limit }),

    // One synchronous call: no write of this connection comes between the counts.
    chainCounts: (keys: ChainKeys): ChainCounts => {
      if (keys !== 'plain')
        return {
          tokens: inRange.tokens.get(keys)!,
          markets: inRange.markets.get(keys)!,
          trades: inRange.trades.get(keys)!,
          lastTradeAt: inRange.lastTradeAt.get(keys) ?? null,
        };
      return {
        tokens: inPlain.tokens.get()!,
        markets: inPlain.markets.get()!,
        trades: inPlain.trades.get()!,
        lastTradeAt: inPlain.lastTradeAt.get() ?? null,
      };
    },
  };
}
