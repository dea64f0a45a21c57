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
    `SELECT ${SUMMARY} FROM tokens t WHERE t.address >= :from AND t.address < :to ORDER BY t.created_at DESC, t.address LIMIT :limit`,
  );
  const newestPlain = db.prepare<{ limit: number }, TokenSummary>(
    `SELECT ${SUMMARY} FROM tokens t WHERE instr(t.address, ':') = 0 ORDER BY t.created_at DESC, t.address LIMIT :limit`,
  );
  // A chain's keys are one range of the tokens' and markets' unique address indexes; its trades
  // are counted token by token on trades_token_time. The default chain's keys (no colon) are not
  // a range: its tokens and markets are a scan, its trades the store's count less every other chain's.
  const inRange = db.prepare<{ from: string; to: string }, [number, number, number, number | null]>(
    `SELECT (SELECT count(*) FROM tokens WHERE address >= :from AND address < :to),
            (SELECT count(*) FROM markets WHERE address >= :from AND address < :to),
            (SELECT count(*) FROM trades WHERE token_id IN (SELECT id FROM tokens WHERE address >= :from AND address < :to)),
            (SELECT max(last_trade_at) FROM tokens WHERE address >= :from AND address < :to)`,
  );
  const inPlain = db.prepare<[], [number, number, number, number | null]>(
    `SELECT (SELECT count(*) FROM tokens WHERE instr(address, ':') = 0),
            (SELECT count(*) FROM markets WHERE instr(address, ':') = 0),
            coalesce((SELECT n FROM trade_count WHERE one = 1), 0)
              - (SELECT count(*) FROM trades WHERE token_id IN (SELECT id FROM tokens WHERE instr(address, ':') > 0)),
            (SELECT max(last_trade_at) FROM tokens WHERE instr(address, ':') = 0)`,
  );
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

    chainCounts(keys: ChainKeys): ChainCounts {
      const [tokens, markets, trades, lastTradeAt] = keys === 'plain' ? inPlain.raw().get()! : inRange.raw().get(keys)!;
      return { tokens, markets, trades, lastTradeAt };
    },
  };
}
