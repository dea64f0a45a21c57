/**
 * Symbol lookup and search for the UDF datafeed (docs/api.md, TradingView UDF datafeed): a token by address (exact,
 * else case-insensitive when exactly one token matches), by symbol (case-insensitive; the most
 * liquid wins) or by `EXCHANGE:SYMBOL`, a ranked search, and the list of exchanges (one per dex).
 * A token's liquidity is the sum of its markets' liquidity_usd; ties go to the smaller address.
 *
 * Every statement reads through an index of udf_listing, tokens or udf_names (migration 010), so
 * no request scans every token (docs/api.md, TradingView UDF datafeed: cost). A search sorts the matches of a
 * query that has few; one that has many walks tokens by liquidity until it has `limit` of them,
 * within a row budget; only when that budget runs out (the many matches all sit at low
 * liquidity) does it sort them.
 */
import type { Db } from './db.js';
import { normalizeAddress } from '../../domain/address.js';
import { nameHasPhrase, queryWords } from '../../domain/udf.js';
import type { Resolved, ResolvedPair, SearchQuery, SymbolRow, SymbolsRepo } from '../port/tokens.js';
import {
  dexAllows,
  dexKey as dexKeyOn,
  hitExchange,
  mayBeCasedAddress,
  pairName,
  rankHits,
  searchesAddressPrefix,
  symbolLookups,
  topDexOr,
  type SymbolHit,
} from '../../domain/udf-search.js';
import { escapeLike, holdsNul } from '../shared/sql-text.js';

export { escapeLike, holdsNul };

// The interface and row types are the port's (src/store/port/tokens.ts), named here too.
export type { Resolved, ResolvedPair, SearchQuery, SymbolRow, SymbolsRepo } from '../port/tokens.js';

/**
 * A query with at least this many matches is answered by walking tokens in liquidity order (it
 * meets `limit` matches after about limit x tokens / matches rows); one with fewer by sorting its
 * matches. Either way a search reads at most a few thousand index rows at 200,000 tokens.
 */
const DENSE_MATCHES = 2000;
/** Rows a walk by liquidity may read before the sorted path takes over (matches all sit low). */
const WALK_BUDGET = 3000;

/** The FTS5 query for words in a row, the last one a prefix (["super", "b"] -> `"super b"*`). */
const ftsPrefixPhrase = (words: readonly string[]): string => `"${words.join(' ')}"*`;

const TOKEN = `SELECT t.id, t.address, t.symbol, t.name, t.price_usd AS priceUsd, t.last_trade_at AS lastTradeAt,
  t.circulating_supply AS circulatingSupply,
  l.liquidity_usd AS liquidityUsd,
  coalesce((SELECT m.dex FROM markets m WHERE m.token_id = t.id ORDER BY m.liquidity_usd DESC, m.address LIMIT 1), '') AS topDex
  FROM tokens t JOIN udf_listing l ON l.token_id = t.id AND l.dex = ''`;

/** One search candidate: a token listed under @dex ('' = all), in ranking order within its class. */
type Hit = SymbolHit;
const HIT = 'l.token_id AS id, l.liquidity_usd AS liq, l.address, l.dex';
const ORDER = 'ORDER BY l.liquidity_usd DESC, l.address LIMIT @limit';
type HitParams = { dex: string; q: string; limit: number };

/**
 * Every statement of this repo, exported so a test can read each one's query plan and pin that
 * none scans a table (docs/api.md, TradingView UDF datafeed: cost).
 */
export const SYMBOLS_SQL = {
  tokenById: `${TOKEN} WHERE t.id = ?`,
  idByAddress: 'SELECT id FROM tokens WHERE address = ?',
  marketByAddress: 'SELECT token_id AS tokenId, address, dex, quote_symbol AS quoteSymbol FROM markets WHERE address = ?',
  idsByAddressNocase: 'SELECT id FROM tokens WHERE address = ? COLLATE NOCASE LIMIT 2',
  idBySymbol: 'SELECT token_id FROM udf_listing WHERE dex = @dex AND symbol = @symbol ORDER BY liquidity_usd DESC, address LIMIT 1',
  listedOn: 'SELECT dex FROM udf_listing WHERE token_id = ? AND dex = ?',
  top: `SELECT ${HIT} FROM udf_listing l WHERE l.dex = @dex ${ORDER}`,
  symbolExact: `SELECT ${HIT} FROM udf_listing l WHERE l.dex = @dex AND l.symbol = @q ${ORDER}`,
  symbolPrefix: `SELECT ${HIT} FROM udf_listing l INDEXED BY udf_listing_symbol
    WHERE l.dex = @dex AND l.symbol LIKE @prefix ESCAPE '\\' AND l.symbol <> @q ${ORDER}`,
  // CROSS JOIN keeps tokens outermost, read through its address index (the planner would walk every listing).
  addressExact: `SELECT ${HIT} FROM tokens t CROSS JOIN udf_listing l ON l.token_id = t.id AND l.dex = @dex
    WHERE t.address = @q COLLATE NOCASE ${ORDER}`,
  addressPrefix: `SELECT ${HIT} FROM tokens t CROSS JOIN udf_listing l ON l.token_id = t.id AND l.dex = @dex
    WHERE t.address LIKE @prefix ESCAPE '\\' ${ORDER}`,
  names: `SELECT ${HIT} FROM udf_names n JOIN udf_listing l ON l.token_id = n.rowid AND l.dex = @dex
    WHERE udf_names MATCH @match ${ORDER}`,
  // Dense queries ("b" matches a third of all names): count up to a cap, then walk by liquidity.
  symbolPrefixCount: `SELECT count(*) FROM (SELECT 1 FROM udf_listing INDEXED BY udf_listing_symbol
    WHERE dex = @dex AND symbol LIKE @prefix ESCAPE '\\' LIMIT @cap)`,
  // The first @budget tokens by liquidity, filtered: a co-routine that stops at `limit` hits.
  symbolPrefixWalk: `SELECT * FROM (SELECT ${HIT}, l.symbol FROM udf_listing l INDEXED BY udf_listing_rank
      WHERE l.dex = @dex ORDER BY l.liquidity_usd DESC, l.address LIMIT @budget)
    WHERE symbol LIKE @prefix ESCAPE '\\' AND symbol <> @q LIMIT @limit`,
  namesCount: 'SELECT count(*) FROM (SELECT 1 FROM udf_names WHERE udf_names MATCH @match LIMIT @cap)',
  // Read row by row until `limit` names match (checked in JS by the same word rule as udf_names).
  namesWalk: `SELECT ${HIT}, t.name FROM udf_listing l INDEXED BY udf_listing_rank CROSS JOIN tokens t ON t.id = l.token_id
    WHERE l.dex = @dex ORDER BY l.liquidity_usd DESC, l.address`,
  // A skip scan over udf_listing_rank: one index seek per distinct dex, however many tokens.
  dexes: `WITH RECURSIVE d(dex) AS (
      SELECT (SELECT min(dex) FROM udf_listing WHERE dex > '')
      UNION ALL
      SELECT (SELECT min(dex) FROM udf_listing WHERE dex > d.dex) FROM d WHERE d.dex IS NOT NULL)
    SELECT dex FROM d WHERE dex IS NOT NULL`,
} as const;

/** Thresholds of the search paths; tests lower them to drive every path on a small store. */
export type SearchTuning = { denseMatches: number; walkBudget: number };

export function createSymbolsRepo(db: Db, chain: string, tuning: SearchTuning = { denseMatches: DENSE_MATCHES, walkBudget: WALK_BUDGET }): SymbolsRepo {
  const { denseMatches, walkBudget } = tuning;
  const tokenById = db.prepare<[number], SymbolRow>(SYMBOLS_SQL.tokenById);
  const idByAddress = db.prepare<[string], number>(SYMBOLS_SQL.idByAddress).pluck();
  const marketByAddress = db.prepare<[string], { tokenId: number; address: string; dex: string; quoteSymbol: string }>(SYMBOLS_SQL.marketByAddress);
  const idsByAddressNocase = db.prepare<[string], number>(SYMBOLS_SQL.idsByAddressNocase).pluck();
  const idBySymbol = db.prepare<{ dex: string; symbol: string }, number>(SYMBOLS_SQL.idBySymbol).pluck();
  const listedOn = db.prepare<[number, string], string>(SYMBOLS_SQL.listedOn).pluck();
  const top = db.prepare<HitParams, Hit>(SYMBOLS_SQL.top);
  const symbolExact = db.prepare<HitParams, Hit>(SYMBOLS_SQL.symbolExact);
  const symbolPrefix = db.prepare<HitParams & { prefix: string }, Hit>(SYMBOLS_SQL.symbolPrefix);
  const addressExact = db.prepare<HitParams, Hit>(SYMBOLS_SQL.addressExact);
  const addressPrefix = db.prepare<HitParams & { prefix: string }, Hit>(SYMBOLS_SQL.addressPrefix);
  const names = db.prepare<HitParams & { match: string }, Hit>(SYMBOLS_SQL.names);
  const dexes = db.prepare<[], string>(SYMBOLS_SQL.dexes).pluck();
  const symbolPrefixCount = db.prepare<{ dex: string; prefix: string; cap: number }, number>(SYMBOLS_SQL.symbolPrefixCount).pluck();
  const symbolPrefixWalk = db.prepare<HitParams & { prefix: string; budget: number }, Hit>(SYMBOLS_SQL.symbolPrefixWalk);
  const namesCount = db.prepare<{ match: string; cap: number }, number>(SYMBOLS_SQL.namesCount).pluck();
  const namesWalk = db.prepare<{ dex: string }, Hit & { name: string }>(SYMBOLS_SQL.namesWalk);

  /** The best `limit` tokens whose symbol starts with the query but is not it. */
  function symbolPrefixHits(p: HitParams, prefix: string): Hit[] {
    if (symbolPrefixCount.get({ dex: p.dex, prefix, cap: denseMatches })! >= denseMatches) {
      const hits = symbolPrefixWalk.all({ ...p, prefix, budget: walkBudget });
      if (hits.length >= p.limit) return hits;
    }
    return symbolPrefix.all({ ...p, prefix });
  }

  /** The best `limit` tokens whose names hold `words` in a row, the last as a word prefix. */
  function nameHits(p: HitParams, words: string[]): Hit[] {
    const match = ftsPrefixPhrase(words);
    if (namesCount.get({ match, cap: denseMatches })! >= denseMatches) {
      const hits = walkNames(p, words);
      if (hits !== null) return hits;
    }
    return names.all({ ...p, match });
  }

  /** The best `limit` tokens whose names hold `words`, or null when the row budget holds fewer. */
  function walkNames(p: HitParams, words: string[]): Hit[] | null {
    const hits: Hit[] = [];
    const last = words.at(-1)!;
    let read = 0;
    for (const row of namesWalk.iterate({ dex: p.dex })) {
      if (++read > walkBudget) return null;
      if (!row.name.toLowerCase().includes(last) || !nameHasPhrase(row.name, words)) continue;
      hits.push(row);
      if (hits.length >= p.limit) return hits;
    }
    return hits;
  }

  const token = (id: number): SymbolRow => topDexOr(tokenById.get(id)!, chain);
  const dexKey = (exchange: string | null): string => dexKeyOn(exchange, chain);

  function idOfAddress(name: string): number | undefined {
    const exact = normalizeAddress(name);
    const id = exact === null ? undefined : idByAddress.get(exact);
    if (id !== undefined || !mayBeCasedAddress(name)) return id;
    // The Charting Library upper-cases what users type: accept a single case-insensitive match.
    const ids = idsByAddressNocase.all(name);
    return ids.length === 1 ? ids[0] : undefined;
  }

  /** A token on `dex` ('' = any) named by address or symbol. */
  function lookup(name: string, dex: string): Resolved | null {
    const byAddress = idOfAddress(name);
    const id = byAddress ?? idBySymbol.get({ dex, symbol: name });
    if (id === undefined) return null;
    if (dex === '') {
      const found = token(id);
      return { token: found, exchange: found.topDex };
    }
    const shown = listedOn.get(id, dex);
    return shown === undefined ? null : { token: token(id), exchange: shown };
  }

  return {
    /**
     * Resolves what a chart calls a symbol: an address, a symbol, or `EXCHANGE:SYMBOL` /
     * `EXCHANGE:ADDRESS` (an empty exchange or the chain name means all). Leading and trailing
     * blanks are ignored. A name that is not found as `EXCHANGE:...` is still tried whole.
     */
    resolve(name: string): Resolved | null {
      for (const l of symbolLookups(name, chain)) {
        const found = lookup(l.name, l.dex);
        if (found !== null) return found;
      }
      return null;
    },

    /**
     * A market named by its address, or `EXCHANGE:ADDRESS` (the exchange, when not empty or the
     * chain name, must be the market's dex, case-insensitively); null when it names no market.
     */
    pair(name: string): ResolvedPair | null {
      const { dex, address } = pairName(name, chain);
      const m = address === null ? undefined : marketByAddress.get(address);
      if (m === undefined || !dexAllows(dex, m.dex)) return null;
      return { token: token(m.tokenId), market: { address: m.address, dex: m.dex, quoteSymbol: m.quoteSymbol } };
    },

    /**
     * Tokens matching the query, best first: exact address or symbol, then symbol prefixes, then
     * name word prefixes and address prefixes; each class by liquidity, then address.
     */
    search(q: SearchQuery): Resolved[] {
      const p: HitParams = { dex: dexKey(q.exchange), q: q.query.trim(), limit: q.limit };
      if (holdsNul(p.q) || holdsNul(p.dex)) return [];
      const classes: Hit[][] = [];
      if (p.q === '') classes.push(top.all(p));
      else {
        const prefix = `${escapeLike(p.q)}%`;
        const words = queryWords(p.q);
        classes.push([...addressExact.all(p), ...symbolExact.all(p)]);
        classes.push(symbolPrefixHits(p, prefix));
        classes.push([...(words === null ? [] : nameHits(p, words)), ...(searchesAddressPrefix(p.q) ? addressPrefix.all({ ...p, prefix }) : [])]);
      }
      // Each class holds its own best `limit`; a token keeps its best class.
      return rankHits(classes, q.limit).map((h) => {
        const found = token(h.id);
        return { token: found, exchange: hitExchange(h, found.topDex) };
      });
    },

    /** Every dex that has a market, one spelling each, sorted case-insensitively. */
    exchanges: (): string[] => dexes.all(),
  };
}
