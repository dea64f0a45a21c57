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
import { nameHasPhrase, queryWords } from '../../domain/udf.js';
import type { Resolved, ResolvedPair, SearchQuery, SymbolRow, SymbolsRepo } from '../port/tokens.js';
import { dexAllows, dexKey as dexKeyOn, hitExchange, rankHits, searchesAddressPrefix, topDexOr, type SymbolHit } from '../../domain/udf-search.js';
import { addressForms, addressKeys, chainLookups, chainPairName, keyFilter, NO_KEY_FILTER, type ChainLookup, type KeyFilter } from '../../domain/udf-chains.js';
import { keyChain, oneChain, showsChains, type Chains } from '../../domain/chains.js';
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
/** A chain filter's parameters (CHAIN_FILTER); NO_CHAIN when none (the statements then read none). */
type ChainParams = { cfrom: string; cto: string; plain: 0 | 1 };
const NO_CHAIN: ChainParams = { cfrom: '', cto: '', plain: 0 };
type HitParams = { dex: string; q: string; limit: number } & ChainParams;

/**
 * The statements of this repo with `f(alias)` added to every read that lists or finds tokens by
 * name: '' for none, else the chain filter of a search or lookup on one chain (CHAIN_FILTER).
 */
function symbolsSql(f: (alias: string) => string) {
  return {
    tokenById: `${TOKEN} WHERE t.id = ?`,
    idByAddress: 'SELECT id FROM tokens WHERE address = ?',
    marketByAddress: 'SELECT token_id AS tokenId, address, dex, quote_symbol AS quoteSymbol FROM markets WHERE address = ?',
    idsByAddressNocase: 'SELECT id FROM tokens WHERE address = ? COLLATE NOCASE LIMIT 2',
    idBySymbol: `SELECT token_id FROM udf_listing WHERE dex = @dex AND symbol = @symbol${f('')} ORDER BY liquidity_usd DESC, address LIMIT 1`,
    listedOn: 'SELECT dex FROM udf_listing WHERE token_id = ? AND dex = ?',
    top: `SELECT ${HIT} FROM udf_listing l WHERE l.dex = @dex${f('l.')} ${ORDER}`,
    symbolExact: `SELECT ${HIT} FROM udf_listing l WHERE l.dex = @dex AND l.symbol = @q${f('l.')} ${ORDER}`,
    symbolPrefix: `SELECT ${HIT} FROM udf_listing l INDEXED BY udf_listing_symbol
    WHERE l.dex = @dex AND l.symbol LIKE @prefix ESCAPE '\\' AND l.symbol <> @q${f('l.')} ${ORDER}`,
    // CROSS JOIN keeps tokens outermost, read through its address index (the planner would walk every listing).
    addressExact: `SELECT ${HIT} FROM tokens t CROSS JOIN udf_listing l ON l.token_id = t.id AND l.dex = @dex
    WHERE t.address = @q COLLATE NOCASE${f('l.')} ${ORDER}`,
    addressPrefix: `SELECT ${HIT} FROM tokens t CROSS JOIN udf_listing l ON l.token_id = t.id AND l.dex = @dex
    WHERE t.address LIKE @prefix ESCAPE '\\'${f('l.')} ${ORDER}`,
    names: `SELECT ${HIT} FROM udf_names n JOIN udf_listing l ON l.token_id = n.rowid AND l.dex = @dex
    WHERE udf_names MATCH @match${f('l.')} ${ORDER}`,
    // Dense queries ("b" matches a third of all names): count up to a cap, then walk by liquidity.
    symbolPrefixCount: `SELECT count(*) FROM (SELECT 1 FROM udf_listing INDEXED BY udf_listing_symbol
    WHERE dex = @dex AND symbol LIKE @prefix ESCAPE '\\' LIMIT @cap)`,
    // The first @budget tokens by liquidity, filtered: a co-routine that stops at `limit` hits.
    symbolPrefixWalk: `SELECT * FROM (SELECT ${HIT}, l.symbol FROM udf_listing l INDEXED BY udf_listing_rank
      WHERE l.dex = @dex${f('l.')} ORDER BY l.liquidity_usd DESC, l.address LIMIT @budget)
    WHERE symbol LIKE @prefix ESCAPE '\\' AND symbol <> @q LIMIT @limit`,
    namesCount: 'SELECT count(*) FROM (SELECT 1 FROM udf_names WHERE udf_names MATCH @match LIMIT @cap)',
    // Read row by row until `limit` names match (checked in JS by the same word rule as udf_names).
    namesWalk: `SELECT ${HIT}, t.name FROM udf_listing l INDEXED BY udf_listing_rank CROSS JOIN tokens t ON t.id = l.token_id
    WHERE l.dex = @dex${f('l.')} ORDER BY l.liquidity_usd DESC, l.address`,
    // A skip scan over udf_listing_rank: one index seek per distinct dex, however many tokens.
    dexes: `WITH RECURSIVE d(dex) AS (
      SELECT (SELECT min(dex) FROM udf_listing WHERE dex > '')
      UNION ALL
      SELECT (SELECT min(dex) FROM udf_listing WHERE dex > d.dex) FROM d WHERE d.dex IS NOT NULL)
    SELECT dex FROM d WHERE dex IS NOT NULL`,
  } as const;
}

/**
 * One chain's keys (docs/chains.md, How chains are stored): a non-default chain's are the range
 * [@cfrom, @cto); the default chain's hold no colon (@plain = 1). A residual test on rows the
 * index already reads, so the plans stay those of the statements without it.
 */
const CHAIN_FILTER = (a: string): string =>
  ` AND (@cfrom = '' OR (${a}address >= @cfrom AND ${a}address < @cto)) AND (@plain = 0 OR instr(${a}address, ':') = 0)`;

/**
 * Every statement of this repo, exported so a test can read each one's query plan and pin that
 * none scans a table (docs/api.md, TradingView UDF datafeed: cost).
 */
export const SYMBOLS_SQL = symbolsSql(() => '');
/** The same statements on one chain of several (a search's `chain`, a `CHAIN:NAME` lookup). */
export const SYMBOLS_CHAIN_SQL = symbolsSql(CHAIN_FILTER);

/** Thresholds of the search paths; tests lower them to drive every path on a small store. */
export type SearchTuning = { denseMatches: number; walkBudget: number };

/** The prepared statements of one variant of SYMBOLS_SQL. */
function prepareAll(db: Db, sql: ReturnType<typeof symbolsSql>) {
  return {
    tokenById: db.prepare<[number], SymbolRow>(sql.tokenById),
    idByAddress: db.prepare<[string], number>(sql.idByAddress).pluck(),
    marketByAddress: db.prepare<[string], { tokenId: number; address: string; dex: string; quoteSymbol: string }>(sql.marketByAddress),
    idsByAddressNocase: db.prepare<[string], number>(sql.idsByAddressNocase).pluck(),
    idBySymbol: db.prepare<{ dex: string; symbol: string } & ChainParams, number>(sql.idBySymbol).pluck(),
    listedOn: db.prepare<[number, string], string>(sql.listedOn).pluck(),
    top: db.prepare<HitParams, Hit>(sql.top),
    symbolExact: db.prepare<HitParams, Hit>(sql.symbolExact),
    symbolPrefix: db.prepare<HitParams & { prefix: string }, Hit>(sql.symbolPrefix),
    addressExact: db.prepare<HitParams, Hit>(sql.addressExact),
    addressPrefix: db.prepare<HitParams & { prefix: string }, Hit>(sql.addressPrefix),
    names: db.prepare<HitParams & { match: string }, Hit>(sql.names),
    dexes: db.prepare<[], string>(sql.dexes).pluck(),
    symbolPrefixCount: db.prepare<{ dex: string; prefix: string; cap: number }, number>(sql.symbolPrefixCount).pluck(),
    symbolPrefixWalk: db.prepare<HitParams & { prefix: string; budget: number }, Hit>(sql.symbolPrefixWalk),
    namesCount: db.prepare<{ match: string; cap: number }, number>(sql.namesCount).pluck(),
    namesWalk: db.prepare<{ dex: string } & ChainParams, Hit & { name: string }>(sql.namesWalk),
  };
}

/**
 * `chains` are the deployment's (a chain's name alone: that one chain). With several, tickers are
 * store keys, `CHAIN:NAME` looks on that chain and a search may keep to one (docs/chains.md).
 */
export function createSymbolsRepo(
  db: Db,
  chainsOrName: Chains | string,
  tuning: SearchTuning = { denseMatches: DENSE_MATCHES, walkBudget: WALK_BUDGET },
): SymbolsRepo {
  const chains = typeof chainsOrName === 'string' ? oneChain(chainsOrName) : chainsOrName;
  const chain = chains.defaultChain;
  const { denseMatches, walkBudget } = tuning;
  const all = prepareAll(db, SYMBOLS_SQL);
  // Prepared only where a chain can be asked for: one chain's lookups are the statements above.
  const onChain = showsChains(chains) ? prepareAll(db, SYMBOLS_CHAIN_SQL) : all;
  const { tokenById, idByAddress, marketByAddress, idsByAddressNocase, listedOn, dexes, symbolPrefixCount, namesCount } = all;
  type Statements = typeof all;

  /** The statements and their chain parameters for a filter. */
  const on = (f: KeyFilter): { st: Statements; c: ChainParams } =>
    f === NO_KEY_FILTER ? { st: all, c: NO_CHAIN } : { st: onChain, c: { cfrom: f.from, cto: f.to, plain: f.plain ? 1 : 0 } };

  /** The best `limit` tokens whose symbol starts with the query but is not it. */
  function symbolPrefixHits(st: Statements, p: HitParams, prefix: string): Hit[] {
    if (symbolPrefixCount.get({ dex: p.dex, prefix, cap: denseMatches })! >= denseMatches) {
      const hits = st.symbolPrefixWalk.all({ ...p, prefix, budget: walkBudget });
      if (hits.length >= p.limit) return hits;
    }
    return st.symbolPrefix.all({ ...p, prefix });
  }

  /** The best `limit` tokens whose names hold `words` in a row, the last as a word prefix. */
  function nameHits(st: Statements, p: HitParams, words: string[]): Hit[] {
    const match = ftsPrefixPhrase(words);
    if (namesCount.get({ match, cap: denseMatches })! >= denseMatches) {
      const hits = walkNames(st, p, words);
      if (hits !== null) return hits;
    }
    return st.names.all({ ...p, match });
  }

  /** The best `limit` tokens whose names hold `words`, or null when the row budget holds fewer. */
  function walkNames(st: Statements, p: HitParams, words: string[]): Hit[] | null {
    const hits: Hit[] = [];
    const last = words.at(-1)!;
    let read = 0;
    for (const row of st.namesWalk.iterate(p)) {
      if (++read > walkBudget) return null;
      if (!row.name.toLowerCase().includes(last) || !nameHasPhrase(row.name, words)) continue;
      hits.push(row);
      if (hits.length >= p.limit) return hits;
    }
    return hits;
  }

  // Without markets a token shows its own chain's name as exchange, which CHAIN:SYMBOL resolves back.
  const token = (id: number): SymbolRow => {
    const row = tokenById.get(id)!;
    return topDexOr(row, keyChain(row.address, chains));
  };
  const dexKey = (exchange: string | null): string => dexKeyOn(exchange, chain);

  /** The token an address names (on `chain`, or as its own `chain:` prefix says when null). */
  function idOfAddress(name: string, on: string | null): number | undefined {
    const { exact, folded } = addressKeys(name, on, chains);
    const id = exact === null ? undefined : idByAddress.get(exact);
    if (id !== undefined || folded === null) return id;
    // The Charting Library upper-cases what users type: accept a single case-insensitive match.
    const ids = idsByAddressNocase.all(folded);
    return ids.length === 1 ? ids[0] : undefined;
  }

  /** A token on `dex` ('' = any) and `chain` (null = any) named by address or symbol. */
  function lookup(l: ChainLookup): Resolved | null {
    const { st, c } = on(keyFilter(l.chain, chains));
    const id = idOfAddress(l.name, l.chain) ?? st.idBySymbol.get({ dex: l.dex, symbol: l.name, ...c });
    if (id === undefined) return null;
    if (l.dex === '') {
      const found = token(id);
      return { token: found, exchange: found.topDex };
    }
    const shown = listedOn.get(id, l.dex);
    return shown === undefined ? null : { token: token(id), exchange: shown };
  }

  return {
    /**
     * Resolves what a chart calls a symbol: an address or `chain:address`, a symbol, or
     * `CHAIN:NAME` / `EXCHANGE:SYMBOL` / `EXCHANGE:ADDRESS` (an empty exchange means all).
     * Leading and trailing blanks are ignored. A name that is not found as `X:...` is still tried whole.
     */
    resolve(name: string): Resolved | null {
      for (const l of chainLookups(name, chains)) {
        const found = lookup(l);
        if (found !== null) return found;
      }
      return null;
    },

    /**
     * A market named by its address (`chain:address` off the default chain), `CHAIN:ADDRESS`, or
     * `EXCHANGE:ADDRESS` (the exchange, when not empty or the chain name, must be the market's
     * dex, case-insensitively); null when it names no market.
     */
    pair(name: string): ResolvedPair | null {
      const { dex, key } = chainPairName(name, chains);
      const m = key === null ? undefined : marketByAddress.get(key);
      if (m === undefined || !dexAllows(dex, m.dex)) return null;
      return { token: token(m.tokenId), market: { address: m.address, dex: m.dex, quoteSymbol: m.quoteSymbol } };
    },

    /**
     * Tokens matching the query, best first: exact address or symbol, then symbol prefixes, then
     * name word prefixes and address prefixes; each class by liquidity, then address.
     */
    search(q: SearchQuery): Resolved[] {
      const { st, c } = on(keyFilter(q.chain ?? null, chains));
      const p: HitParams = { dex: dexKey(q.exchange), q: q.query.trim(), limit: q.limit, ...c };
      if (holdsNul(p.q) || holdsNul(p.dex)) return [];
      const classes: Hit[][] = [];
      if (p.q === '') classes.push(st.top.all(p));
      else {
        const prefix = `${escapeLike(p.q)}%`;
        const words = queryWords(p.q);
        const forms = addressForms(p.q, q.chain ?? null, chains);
        classes.push([...forms.flatMap((a) => st.addressExact.all({ ...p, q: a })), ...st.symbolExact.all(p)]);
        classes.push(symbolPrefixHits(st, p, prefix));
        classes.push([
          ...(words === null ? [] : nameHits(st, p, words)),
          ...(searchesAddressPrefix(p.q) ? forms.flatMap((a) => st.addressPrefix.all({ ...p, prefix: `${escapeLike(a)}%` })) : []),
        ]);
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
