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
import { nameHasPhrase, queryWords } from '../../domain/udf.js';
import { dexAllows, dexKey as dexKeyOn, hitExchange, rankHits, searchesAddressPrefix, topDexOr, type SymbolHit } from '../../domain/udf-search.js';
import { addressForms, addressKeys, chainLookups, chainPairName, keyFilter, NO_KEY_FILTER, type KeyFilter } from '../../domain/udf-chains.js';
import { keyChain, oneChain, type Chains } from '../../domain/chains.js';
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

/**
 * One chain's keys as SQL on `a`.address (docs/chains.md, How chains are stored), its parameters
 * numbered from `n`: a non-default chain's key range, or the default chain's keys without a colon.
 * Nothing for no filter, so one chain's statements are those from before chains.
 */
function chainSql(f: KeyFilter, a: string, n: number): { sql: string; params: unknown[] } {
  if (f === NO_KEY_FILTER) return { sql: '', params: [] };
  if (f.plain) return { sql: ` AND strpos(${a}address, ':') = 0`, params: [] };
  return { sql: ` AND ${a}address COLLATE "C" >= $${n} AND ${a}address COLLATE "C" < $${n + 1}`, params: [f.from, f.to] };
}

/** `chains` are the deployment's (a chain's name alone: that one chain); see the SQLite twin. */
export function createPgSymbolsRepo(db: Queryable, chainsOrName: Chains | string): PgSymbolsRepo {
  const chains = typeof chainsOrName === 'string' ? oneChain(chainsOrName) : chainsOrName;
  const chain = chains.defaultChain;
  const token = async (id: number): Promise<SymbolRow> => {
    const found = (await row<SymbolRow>(db, `${TOKEN} WHERE t.id = $1`, [id]))!;
    // Without markets a token shows its own chain's name as exchange, which CHAIN:SYMBOL resolves back.
    return topDexOr(found, keyChain(found.address, chains));
  };
  const dexKey = (exchange: string | null): string => dexKeyOn(exchange, chain);
  const hits = (f: KeyFilter, where: string, params: unknown[], limit: number, from = 'udf_listing l'): Promise<Hit[]> => {
    const c = chainSql(f, 'l.', params.length + 1);
    return rows<Hit>(db, `SELECT ${HIT} FROM ${from} WHERE lower(l.dex) = lower($1) AND ${where}${c.sql} ${ORDER} LIMIT ${Number(limit)}`, [
      ...params,
      ...c.params,
    ]);
  };

  /** The token an address names (on `on`, or as its own `chain:` prefix says when null). */
  async function idOfAddress(name: string, on: string | null): Promise<number | undefined> {
    const { exact, folded } = addressKeys(name, on, chains);
    const id = exact === null ? undefined : (await row<{ id: number }>(db, 'SELECT id FROM tokens WHERE address = $1', [exact]))?.id;
    if (id !== undefined || folded === null) return id;
    // The Charting Library upper-cases what users type: accept a single case-insensitive match.
    const ids = await rows<{ id: number }>(db, 'SELECT id FROM tokens WHERE lower(address) = lower($1) LIMIT 2', [folded]);
    return ids.length === 1 ? ids[0]!.id : undefined;
  }

  async function lookup(name: string, dex: string, on: string | null): Promise<Resolved | null> {
    if (holdsNul(name) || holdsNul(dex)) return null;
    const c = chainSql(keyFilter(on, chains), '', 3);
    const id =
      (await idOfAddress(name, on)) ??
      (
        await row<{ id: number }>(
          db,
          `SELECT token_id AS id FROM udf_listing WHERE lower(dex) = lower($1) AND lower(symbol) = lower($2)${c.sql} ORDER BY liquidity_usd DESC, address LIMIT 1`,
          [dex, name, ...c.params],
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
  async function nameHits(f: KeyFilter, dex: string, words: string[], limit: number): Promise<Hit[]> {
    const last = words.at(-1)!;
    const c = chainSql(f, 'l.', 3);
    const candidates = await rows<Hit & { name: string }>(
      db,
      `SELECT ${HIT}, t.name FROM tokens t JOIN udf_listing l ON l.token_id = t.id AND lower(l.dex) = lower($1)
       WHERE lower(t.name COLLATE "und-x-icu") LIKE $2${c.sql} ${ORDER}`,
      [dex, `%${escapeLike(last)}%`, ...c.params],
    );
    return candidates.filter((c) => nameHasPhrase(c.name, words)).slice(0, limit);
  }

  return {
    async resolve(name) {
      for (const l of chainLookups(name, chains)) {
        const found = await lookup(l.name, l.dex, l.chain);
        if (found !== null) return found;
      }
      return null;
    },

    async pair(name) {
      const { dex, key: address } = chainPairName(name, chains);
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
      const f = keyFilter(q.chain ?? null, chains);
      const text = q.query.trim();
      const limit = q.limit;
      if (holdsNul(text) || holdsNul(dex)) return [];
      const classes: Hit[][] = [];
      if (text === '') classes.push(await hits(f, 'true', [dex], limit));
      else {
        const prefix = `${escapeLike(text)}%`;
        const words = queryWords(text);
        const tokensJoin = 'tokens t JOIN udf_listing l ON l.token_id = t.id';
        const forms = addressForms(text, q.chain ?? null, chains);
        classes.push([
          ...(await Promise.all(forms.map((a) => hits(f, 'lower(t.address) = lower($2)', [dex, a], limit, tokensJoin)))).flat(),
          ...(await hits(f, 'lower(l.symbol) = lower($2)', [dex, text], limit)),
        ]);
        classes.push(await hits(f, `lower(l.symbol) LIKE lower($2) ESCAPE '\\' AND lower(l.symbol) <> lower($3)`, [dex, prefix, text], limit));
        classes.push([
          ...(words === null ? [] : await nameHits(f, dex, words, limit)),
          ...(searchesAddressPrefix(text)
            ? (
                await Promise.all(forms.map((a) => hits(f, `lower(t.address) LIKE lower($2) ESCAPE '\\'`, [dex, `${escapeLike(a)}%`], limit, tokensJoin)))
              ).flat()
            : []),
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
