/**
 * Symbol lookup and search for the UDF datafeed (DESIGN.md section 10): a token by address, by
 * symbol (case-insensitive; the most liquid wins) or by `EXCHANGE:SYMBOL`, a ranked search, and
 * the list of exchanges (one per dex). A token's liquidity is the sum of its markets'
 * liquidity_usd; ties go to the smaller address.
 */
import type { Db } from './db.js';
import { normalizeAddress } from '../domain/address.js';
import type { UdfToken } from '../domain/udf.js';

export type SymbolRow = UdfToken & { id: number; liquidityUsd: number; lastTradeAt: number | null };

/** A resolved name: the token and the exchange to show for it. */
export type Resolved = { token: SymbolRow; exchange: string };

export type SearchQuery = {
  /** Matched against symbol prefix, name substring and address prefix, case-insensitively. */
  query: string;
  /** A dex name (case-insensitive), or null for all. */
  exchange: string | null;
  limit: number;
};

const COLUMNS = `t.id, t.address, t.symbol, t.name, t.price_usd AS priceUsd, t.last_trade_at AS lastTradeAt,
  coalesce((SELECT sum(m.liquidity_usd) FROM markets m WHERE m.token_id = t.id), 0) AS liquidityUsd,
  coalesce((SELECT m.dex FROM markets m WHERE m.token_id = t.id ORDER BY m.liquidity_usd DESC, m.address LIMIT 1), '') AS topDex`;

/** The dex as stored, when the token has a market on @dex (compared case-insensitively). */
const ON_DEX = `(SELECT m.dex FROM markets m WHERE m.token_id = t.id AND m.dex = @dex COLLATE NOCASE ORDER BY m.dex LIMIT 1)`;

/** Escapes LIKE's wildcards so `%` and `_` match themselves (used with ESCAPE '\'). */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

type Row = SymbolRow & { onDex: string | null };

export function createSymbolsRepo(db: Db) {
  const byAddress = db.prepare<{ address: string; dex: string | null }, Row>(
    `SELECT ${COLUMNS}, ${ON_DEX} AS onDex FROM tokens t WHERE t.address = @address`,
  );
  const bySymbol = db.prepare<{ symbol: string; dex: string | null }, Row>(
    `SELECT ${COLUMNS}, ${ON_DEX} AS onDex FROM tokens t
     WHERE t.symbol = @symbol COLLATE NOCASE AND (@dex IS NULL OR ${ON_DEX} IS NOT NULL)
     ORDER BY liquidityUsd DESC, t.address LIMIT 1`,
  );
  const search = db.prepare<{ q: string; prefix: string; contains: string; dex: string | null; limit: number }, Row>(
    `SELECT ${COLUMNS}, ${ON_DEX} AS onDex,
       CASE WHEN @q = '' THEN 0
            WHEN t.address = @q OR t.symbol = @q COLLATE NOCASE THEN 0
            WHEN t.symbol LIKE @prefix ESCAPE '\\' THEN 1
            ELSE 2 END AS rank
     FROM tokens t
     WHERE (@q = '' OR t.symbol LIKE @prefix ESCAPE '\\' OR t.name LIKE @contains ESCAPE '\\' OR t.address LIKE @prefix ESCAPE '\\')
       AND (@dex IS NULL OR ${ON_DEX} IS NOT NULL)
     ORDER BY rank, liquidityUsd DESC, t.address
     LIMIT @limit`,
  );
  const dexes = db
    .prepare<[], string>('SELECT min(dex) FROM markets GROUP BY dex COLLATE NOCASE ORDER BY 1 COLLATE NOCASE')
    .pluck();

  const strip = (r: Row): SymbolRow => ({
    id: r.id,
    address: r.address,
    symbol: r.symbol,
    name: r.name,
    priceUsd: r.priceUsd,
    topDex: r.topDex,
    liquidityUsd: r.liquidityUsd,
    lastTradeAt: r.lastTradeAt,
  });

  /** A token on `dex` (null = any) named by address or symbol. */
  function lookup(name: string, dex: string | null): Resolved | null {
    const address = normalizeAddress(name);
    const row = (address !== null ? byAddress.get({ address, dex }) : undefined) ?? bySymbol.get({ symbol: name, dex });
    if (row === undefined) return null;
    if (dex === null) return { token: strip(row), exchange: row.topDex };
    if (row.onDex === null) return null;
    return { token: strip(row), exchange: row.onDex };
  }

  return {
    /**
     * Resolves what a chart calls a symbol: an address, a symbol, or `EXCHANGE:SYMBOL` /
     * `EXCHANGE:ADDRESS` (an empty exchange means all). Leading and trailing blanks are ignored.
     * A name that is not found as `EXCHANGE:...` is still tried as a plain symbol.
     */
    resolve(name: string): Resolved | null {
      const n = name.trim();
      if (n === '') return null;
      const colon = n.indexOf(':');
      if (colon >= 0) {
        const exchange = n.slice(0, colon).trim();
        const rest = n.slice(colon + 1).trim();
        const found = rest === '' ? null : lookup(rest, exchange === '' ? null : exchange);
        if (found !== null) return found;
      }
      return lookup(n, null);
    },

    /** Tokens matching the query, best first: exact matches, symbol prefixes, then the rest; each by liquidity. */
    search(q: SearchQuery): Resolved[] {
      const rows = search.all({
        q: q.query,
        prefix: `${escapeLike(q.query)}%`,
        contains: `%${escapeLike(q.query)}%`,
        dex: q.exchange,
        limit: q.limit,
      });
      return rows.map((row) => ({ token: strip(row), exchange: q.exchange === null ? row.topDex : (row.onDex ?? row.topDex) }));
    },

    /** Every dex that has a market, one spelling each, sorted case-insensitively. */
    exchanges: (): string[] => dexes.all(),
  };
}

export type SymbolsRepo = ReturnType<typeof createSymbolsRepo>;
