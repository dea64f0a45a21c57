/**
 * Token sets for discovery and search (DESIGN.md section 6): tokens traded since a time, the
 * newest tokens, and search matches with the kind of match. Window figures come from the window
 * statistics; this file only picks and describes the tokens.
 */
import type { Db } from './db.js';

export type TokenSummary = {
  id: number;
  address: string;
  symbol: string;
  name: string;
  priceUsd: number | null;
  circulatingSupply: number | null;
  createdAt: number;
  lastTradeAt: number | null;
  /** Sum over the token's markets (0 without markets). */
  liquidityUsd: number;
};

/** Search match kinds, best first. */
export const MATCH_KINDS = ['address', 'symbol', 'symbolPrefix', 'name'] as const;
export type MatchKind = (typeof MATCH_KINDS)[number];

const SUMMARY = `t.id, t.address, t.symbol, t.name, t.price_usd AS priceUsd, t.circulating_supply AS circulatingSupply,
  t.created_at AS createdAt, t.last_trade_at AS lastTradeAt,
  (SELECT coalesce(sum(m.liquidity_usd), 0) FROM markets m WHERE m.token_id = t.id) AS liquidityUsd`;

const folded = new WeakSet<Db>();

/**
 * `fold_case(x)`: JavaScript's toLowerCase, so case-insensitive matching covers more than ASCII
 * (SQLite's lower() and NOCASE fold ASCII only).
 */
function registerFoldCase(db: Db): void {
  if (folded.has(db)) return;
  db.function('fold_case', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v));
  folded.add(db);
}

/** The folding used by search, for callers that fold the query the same way. */
export const foldCase = (s: string): string => s.toLowerCase();

export function createDiscoveryRepo(db: Db) {
  registerFoldCase(db);
  const tradedSince = db.prepare<[{ since: number; minLiquidity: number }], TokenSummary>(
    `SELECT * FROM (SELECT ${SUMMARY} FROM tokens t WHERE t.last_trade_at >= @since) WHERE liquidityUsd >= @minLiquidity`,
  );
  const newest = db.prepare<[number], TokenSummary>(`SELECT ${SUMMARY} FROM tokens t ORDER BY t.created_at DESC, t.address LIMIT ?`);
  // instr() rather than LIKE, so % and _ in the query match themselves.
  const search = db.prepare<[{ q: string; address: string }], TokenSummary & { match: number }>(
    `SELECT * FROM (
       SELECT ${SUMMARY}, CASE
         WHEN t.address = @address THEN 0
         WHEN fold_case(t.symbol) = @q THEN 1
         WHEN instr(fold_case(t.symbol), @q) = 1 THEN 2
         WHEN instr(fold_case(t.name), @q) > 0 THEN 3
       END AS match
       FROM tokens t)
     WHERE match IS NOT NULL`,
  );

  return {
    /** Tokens whose last trade is at or after `since`, with at least `minLiquidity` liquidity. */
    tradedSince: (since: number, minLiquidity: number): TokenSummary[] => tradedSince.all({ since, minLiquidity }),

    /** The `limit` newest tokens by createdAt, ties by address. */
    newest: (limit: number): TokenSummary[] => newest.all(limit),

    /**
     * Every token matching `q`, under its best match: address equals `address` (the query as an
     * address, or null), symbol equals `q` ignoring case, symbol starts with it, name contains it.
     */
    search(q: string, address: string | null): (TokenSummary & { matchedBy: MatchKind })[] {
      return search.all({ q: foldCase(q), address: address ?? '' }).map(({ match, ...t }) => ({ ...t, matchedBy: MATCH_KINDS[match]! }));
    },
  };
}

export type DiscoveryRepo = ReturnType<typeof createDiscoveryRepo>;
