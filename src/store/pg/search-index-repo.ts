/**
 * The /v1/search index reads on PostgreSQL: the twin of createSearchIndexRepo() in
 * src/store/sqlite/search-index-repo.ts (same answers for the same calls, each a promise, and the same
 * count of rows read). SQLite's FTS5 trigram table token_search_names is here the pg_trgm index
 * of the same name on token_search.name: a substring is `name LIKE '%text%'`, narrowed by the
 * index and rechecked, so it is exact and case-sensitive (the names are already folded), as the
 * FTS5 table with case_sensitive 1 is. The other reads are the same index ranges under "C"
 * (byte order, as SQLite's BINARY).
 */
import type { Async } from '../port/async.js';
import type { IndexedToken, SearchIndexRepo } from '../port/repos.js';
import { prefixEnd, prefixSeek, searchIndexChange, TRIGRAM } from '../../domain/search-text.js';
import { escapeLike, holdsControl, holdsNul } from '../shared/sql-text.js';
import { row, rows, type Queryable } from './pg-repo.js';

const COLS = 's.token_id AS id, s.address, s.sym, s.name';

export type PgSearchIndexRepo = Async<SearchIndexRepo>;

export function createPgSearchIndexRepo(db: Queryable): PgSearchIndexRepo {
  let rowsRead = 0;
  const read = async (sql: string, params: unknown[]): Promise<IndexedToken[]> => {
    const found = await rows<IndexedToken>(db, sql, params);
    rowsRead += found.length;
    return found;
  };
  return {
    rowsRead: async () => rowsRead,
    // A text holding a NUL matches no row (see holdsNul), and PostgreSQL would refuse it.
    byAddress: async (address) => (holdsNul(address) ? undefined : (await read(`SELECT ${COLS} FROM token_search s WHERE s.address = $1`, [address]))[0]),
    bySymbol: async (sym, after, n) =>
      holdsNul(sym) ? [] : read(`SELECT ${COLS} FROM token_search s WHERE s.sym = $1 AND s.address > $2 ORDER BY s.address LIMIT $3`, [sym, after, n]),
    bySymbolPrefix: async (prefix, from, n) => {
      if (holdsNul(prefix)) return [];
      const seek = prefixSeek(prefix, from);
      return read(
        `SELECT ${COLS} FROM token_search s
         WHERE (s.sym, s.address) > ($1, $2) AND s.sym < $3 ORDER BY s.sym, s.address LIMIT $4`,
        [seek.sym, seek.address, prefixEnd(prefix), n],
      );
    },
    inAddressOrder: (after, n) => read(`SELECT ${COLS} FROM token_search s WHERE s.address > $1 ORDER BY s.address LIMIT $2`, [after, n]),
    // Names never hold control characters (ingest refuses them): such a text matches no name, as on
    // SQLite. Neither does a text shorter than a trigram, as FTS5's trigram MATCH answers it.
    byName: async (text, after, n) =>
      holdsControl(text) || [...text].length < TRIGRAM
        ? []
        : read(`SELECT ${COLS} FROM token_search s WHERE s.name LIKE $1 ESCAPE '\\' AND s.token_id > $2 ORDER BY s.token_id LIMIT $3`, [
            `%${escapeLike(text)}%`,
            after,
            n,
          ]),
    byShortName: async (gram, after, n) =>
      holdsNul(gram)
        ? []
        : read(
            `SELECT ${COLS} FROM token_search_grams g JOIN token_search s ON s.token_id = g.token_id
             WHERE g.gram = $1 AND g.token_id > $2 ORDER BY g.token_id LIMIT $3`,
            [gram, after, n],
          ),
  };
}

/**
 * Writes one token's index row and its grams when they are missing or changed, as the SQLite
 * search index hook does in the ingest transaction: build it on that transaction's client. The
 * name's trigram index follows token_search.name by itself (SQLite keeps an FTS5 table). A fresh
 * PostgreSQL database never held names folded by lower(), so SQLite's one-time refold has no twin.
 */
export function pgSearchIndexWriter(db: Queryable): (id: number) => Promise<void> {
  return async (id) => {
    const src = await row<{ address: string; symbol: string; name: string }>(db, 'SELECT address, symbol, name FROM tokens WHERE id = $1', [id]);
    if (src === undefined) return;
    const cur = await row<{ sym: string; name: string }>(db, 'SELECT sym, name FROM token_search WHERE token_id = $1', [id]);
    const change = searchIndexChange(src, cur);
    if (change === null) return;
    await db.query(
      `INSERT INTO token_search (token_id, address, sym, name) VALUES ($1, $2, $3, $4)
       ON CONFLICT (token_id) DO UPDATE SET address = excluded.address, sym = excluded.sym, name = excluded.name`,
      [id, change.row.address, change.row.sym, change.row.name],
    );
    if (change.names === null) return;
    if (change.names.drop !== null) await db.query('DELETE FROM token_search_grams WHERE token_id = $1 AND gram = ANY($2::text[])', [id, change.names.drop]);
    await db.query('INSERT INTO token_search_grams (gram, token_id) SELECT g, $1 FROM unnest($2::text[]) AS g ON CONFLICT DO NOTHING', [id, change.names.add]);
  };
}
