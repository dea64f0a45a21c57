/**
 * Symbol lookup and search for the UDF datafeed on PostgreSQL: the twin of
 * src/store/sqlite/symbols-repo.ts (same answers for the same calls, each a promise). SQLite's COLLATE
 * NOCASE columns (udf_listing's dex and symbol) and its ASCII-case-insensitive LIKE become
 * lower() on both sides, which under "C" folds ASCII only, exactly as NOCASE does, and reads the
 * lower(...) indexes of the PostgreSQL schema. Names are found through the udf_names trigram
 * index (candidates holding the query's last word) and kept by the word rule of
 * src/domain/udf.ts, the rule SQLite's FTS5 table applies. A class of hits is always the best
 * `limit` by liquidity, then address: SQLite reaches it by a walk or a sort depending on how
 * many tokens match, PostgreSQL by the sort, so the answers are the same.
 */
import type { Async } from '../port/async.js';
import type { Resolved, SymbolRow, SymbolsRepo } from '../port/repos.js';
import { normalizeAddress } from '../../domain/address.js';
import { nameHasPhrase, queryWords } from '../../domain/udf.js';
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
import { row, rows, type Queryable } from './pg-repo.js';

const TOKEN = `SELECT t.id, t.address, t.symbol, t.name, t.price_usd AS "priceUsd", t.last_trade_at AS "lastTradeAt",
  t.circulating_supply AS "circulatingSupply",
  l.liquidity_usd AS "liquidityUsd",
  coalesce((SELECT m.dex FROM markets m WHERE m.token_id = t.id ORDER BY m.liquidity_usd DESC, m.address LIMIT 1), '') AS "topDex"
  FROM tokens t JOIN udf_listing l ON l.token_id = t.id AND l.dex = ''`;

type Hit = SymbolHit;
const HIT = 'l.token_id AS id, l.liquidity_usd AS liq, l.address, l.dex';
const ORDER = 'ORDER BY l.liquidity_usd DESC, l.address';

export type PgSymbolsRepo = Async<SymbolsRepo>;

export function createPgSymbolsRepo(db: Queryable, chain: string): PgSymbolsRepo {
  const token = async (id: number): Promise<SymbolRow> => {
    return topDexOr((await row<SymbolRow>(db, `${TOKEN} WHERE t.id = $1`, [id]))!, chain);
  };
  const dexKey = (exchange: string | null): string => dexKeyOn(exchange, chain);
  const hits = (where: string, params: unknown[], limit: number, from = 'udf_listing l'): Promise<Hit[]> =>
    rows<Hit>(db, `SELECT ${HIT} FROM ${from} WHERE lower(l.dex) = lower($1) AND ${where} ${ORDER} LIMIT ${Number(limit)}`, params);

  async function idOfAddress(name: string): Promise<number | undefined> {
    const exact = normalizeAddress(name);
    const id = exact === null ? undefined : (await row<{ id: number }>(db, 'SELECT id FROM tokens WHERE address = $1', [exact]))?.id;
    if (id !== undefined || !mayBeCasedAddress(name)) return id;
    // The Charting Library upper-cases what users type: accept a single case-insensitive match.
    const ids = await rows<{ id: number }>(db, 'SELECT id FROM tokens WHERE lower(address) = lower($1) LIMIT 2', [name]);
    return ids.length === 1 ? ids[0]!.id : undefined;
  }

  async function lookup(name: string, dex: string): Promise<Resolved | null> {
    if (holdsNul(name) || holdsNul(dex)) return null;
    const id =
      (await idOfAddress(name)) ??
      (
        await row<{ id: number }>(
          db,
          `SELECT token_id AS id FROM udf_listing WHERE lower(dex) = lower($1) AND lower(symbol) = lower($2) ORDER BY liquidity_usd DESC, address LIMIT 1`,
          [dex, name],
        )
      )?.id;
    if (id === undefined) return null;
    if (dex === '') {
      const found = await token(id);
      return { token: found, exchange: found.topDex };
    }
    const shown = (await row<{ dex: string }>(db, 'SELECT dex FROM udf_listing WHERE token_id = $1 AND lower(dex) = lower($2)', [id, dex]))?.dex;
    return shown === undefined ? null : { token: await token(id), exchange: shown };
  }

  /** The best `limit` tokens whose names hold `words` in a row, the last as a word prefix. */
  async function nameHits(dex: string, words: string[], limit: number): Promise<Hit[]> {
    const last = words.at(-1)!;
    const candidates = await rows<Hit & { name: string }>(
      db,
      `SELECT ${HIT}, t.name FROM tokens t JOIN udf_listing l ON l.token_id = t.id AND lower(l.dex) = lower($1)
       WHERE lower(t.name COLLATE "und-x-icu") LIKE $2 ${ORDER}`,
      [dex, `%${escapeLike(last)}%`],
    );
    return candidates.filter((c) => nameHasPhrase(c.name, words)).slice(0, limit);
  }

  return {
    async resolve(name) {
      for (const l of symbolLookups(name, chain)) {
        const found = await lookup(l.name, l.dex);
        if (found !== null) return found;
      }
      return null;
    },

    async pair(name) {
      const { dex, address } = pairName(name, chain);
      const m =
        address === null
          ? undefined
          : await row<{ tokenId: number; address: string; dex: string; quoteSymbol: string }>(
              db,
              'SELECT token_id AS "tokenId", address, dex, quote_symbol AS "quoteSymbol" FROM markets WHERE address = $1',
              [address],
            );
      if (m === undefined || !dexAllows(dex, m.dex)) return null;
      return { token: await token(m.tokenId), market: { address: m.address, dex: m.dex, quoteSymbol: m.quoteSymbol } };
    },

    async search(q) {
      const dex = dexKey(q.exchange);
      const text = q.query.trim();
      const limit = q.limit;
      if (holdsNul(text) || holdsNul(dex)) return [];
      const classes: Hit[][] = [];
      if (text === '') classes.push(await hits('true', [dex], limit));
      else {
        const prefix = `${escapeLike(text)}%`;
        const words = queryWords(text);
        const tokensJoin = 'tokens t JOIN udf_listing l ON l.token_id = t.id';
        classes.push([
          ...(await hits('lower(t.address) = lower($2)', [dex, text], limit, tokensJoin)),
          ...(await hits('lower(l.symbol) = lower($2)', [dex, text], limit)),
        ]);
        classes.push(await hits(`lower(l.symbol) LIKE lower($2) ESCAPE '\\' AND lower(l.symbol) <> lower($3)`, [dex, prefix, text], limit));
        classes.push([
          ...(words === null ? [] : await nameHits(dex, words, limit)),
          ...(searchesAddressPrefix(text) ? await hits(`lower(t.address) LIKE lower($2) ESCAPE '\\'`, [dex, prefix], limit, tokensJoin) : []),
        ]);
      }
      // Each class holds its own best `limit`; a token keeps its best class.
      const found: Resolved[] = [];
      for (const h of rankHits(classes, limit)) {
        const t = await token(h.id);
        found.push({ token: t, exchange: hitExchange(h, t.topDex) });
      }
      return found;
    },

    // One spelling per dex, case-insensitively: the one SQLite's skip scan meets first in the
    // index it reads, udf_listing_symbol (dex, symbol, liquidity DESC, address, all NOCASE text).
    exchanges: async () =>
      (
        await rows<{ dex: string }>(
          db,
          `SELECT dex FROM (SELECT DISTINCT ON (lower(dex)) dex, lower(dex) AS k FROM udf_listing WHERE dex <> ''
             ORDER BY lower(dex), lower(symbol), liquidity_usd DESC, address) d ORDER BY k`,
        )
      ).map((r) => r.dex),
  };
}
