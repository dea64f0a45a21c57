/**
 * The search index of migration 009 (docs/api.md, Search): each token's address, folded symbol and
 * folded name, kept in the ingest transaction by an IngestHook, and the paged reads /v1/search
 * makes of it. Every read is an index range with a LIMIT, and every row a read returns is
 * counted (`rowsRead`), so tests can pin how much of the index one search may touch.
 */
import type { Db } from './db.js';
import type { SqliteIngestHook } from '../port/ingest.js';
import { createMetaRepo } from './meta-repo.js';
import { foldCase, prefixEnd, prefixSeek, searchIndexChange, shortGrams } from '../../domain/search-text.js';
import { holdsControl } from '../shared/sql-text.js';
import type { IndexedToken, SearchIndexRepo } from '../port/tokens.js';

export { foldCase, shortGrams };

// The interface and row types are the port's (src/store/port/tokens.ts), named here too.
export type { IndexedToken, SearchIndexRepo } from '../port/tokens.js';

const FOLDED_KEY = 'search_index_folded';

type Row = [number, string, string, string];
const toToken = ([id, address, sym, name]: Row): IndexedToken => ({ id, address, sym, name });

/** Writes one token's row (and its name in the trigram index) when it is missing or changed. */
function indexWriter(db: Db) {
  const source = db.prepare<[number], [string, string, string]>('SELECT address, symbol, name FROM tokens WHERE id = ?').raw();
  const current = db.prepare<[number], [string, string]>('SELECT sym, name FROM token_search WHERE token_id = ?').raw();
  const upsert = db.prepare(`INSERT INTO token_search (token_id, address, sym, name) VALUES (?, ?, ?, ?)
    ON CONFLICT (token_id) DO UPDATE SET address = excluded.address, sym = excluded.sym, name = excluded.name`);
  const dropName = db.prepare('DELETE FROM token_search_names WHERE rowid = ?');
  const addName = db.prepare('INSERT INTO token_search_names (rowid, name) VALUES (?, ?)');
  const dropGram = db.prepare('DELETE FROM token_search_grams WHERE gram = ? AND token_id = ?');
  const addGram = db.prepare('INSERT OR IGNORE INTO token_search_grams (gram, token_id) VALUES (?, ?)');
  return (id: number): void => {
    const src = source.get(id);
    if (src === undefined) return;
    const [address, symbol, name] = src;
    const cur = current.get(id);
    const change = searchIndexChange({ address, symbol, name }, cur === undefined ? undefined : { sym: cur[0], name: cur[1] });
    if (change === null) return;
    upsert.run(id, change.row.address, change.row.sym, change.row.name);
    if (change.names === null) return;
    if (change.names.drop !== null) {
      dropName.run(id);
      for (const g of change.names.drop) dropGram.run(g, id);
    }
    addName.run(id, change.row.name);
    for (const g of change.names.add) addGram.run(g, id);
  };
}

/**
 * Refolds, once per store, the rows migration 009 folded with lower(): only tokens whose symbol
 * or name has a character outside printable ASCII can differ.
 */
function refoldOnce(db: Db): void {
  const meta = createMetaRepo(db);
  if (meta.get(FOLDED_KEY) !== undefined) return;
  const write = indexWriter(db);
  db.transaction(() => {
    const ids = db.prepare<[], number>(`SELECT id FROM tokens WHERE symbol GLOB '*[^ -~]*' OR name GLOB '*[^ -~]*'`).pluck().all();
    for (const id of ids) write(id);
    meta.set(FOLDED_KEY, '1');
  }).immediate();
}

/** The hook that keeps the search index; add it to src/services/ingest-hooks.ts. */
export function searchIndexHook(db: Db): SqliteIngestHook {
  refoldOnce(db);
  const write = indexWriter(db);
  return ({ touchedTokens }) => {
    for (const id of touchedTokens) write(id);
  };
}

/** Rebuilds the whole index from the tokens table (for stores written around the ingest path). */
export function rebuildSearchIndex(db: Db): void {
  db.transaction(() => {
    db.exec('DELETE FROM token_search; DELETE FROM token_search_names; DELETE FROM token_search_grams;');
    const write = indexWriter(db);
    for (const id of db.prepare<[], number>('SELECT id FROM tokens').pluck().all()) write(id);
  })();
}

export function createSearchIndexRepo(db: Db): SearchIndexRepo {
  const COLS = 's.token_id, s.address, s.sym, s.name';
  const byAddress = db.prepare<[string], Row>(`SELECT ${COLS} FROM token_search s WHERE s.address = ?`).raw();
  const bySymbol = db
    .prepare<[{ sym: string; after: string; n: number }], Row>(
      `SELECT ${COLS} FROM token_search s WHERE s.sym = @sym AND s.address > @after ORDER BY s.address LIMIT @n`,
    )
    .raw();
  const bySymbolPrefix = db
    // The seek starts at (sym, after), which is never below the prefix: each page reads its own rows
    // only, where `sym >= prefix AND ...` made every page scan the prefix's range from its start.
    .prepare<[{ hi: string; sym: string; after: string; n: number }], Row>(
      `SELECT ${COLS} FROM token_search s
       WHERE (s.sym, s.address) > (@sym, @after) AND s.sym < @hi ORDER BY s.sym, s.address LIMIT @n`,
    )
    .raw();
  const inAddressOrder = db
    .prepare<[{ after: string; n: number }], Row>(`SELECT ${COLS} FROM token_search s WHERE s.address > @after ORDER BY s.address LIMIT @n`)
    .raw();
  const byName = db
    .prepare<[{ match: string; after: number; n: number }], Row>(
      `SELECT ${COLS} FROM token_search_names f JOIN token_search s ON s.token_id = f.rowid
       WHERE token_search_names MATCH @match AND f.rowid > @after ORDER BY f.rowid LIMIT @n`,
    )
    .raw();
  const byGram = db
    .prepare<[{ gram: string; after: number; n: number }], Row>(
      `SELECT ${COLS} FROM token_search_grams g JOIN token_search s ON s.token_id = g.token_id
       WHERE g.gram = @gram AND g.token_id > @after ORDER BY g.token_id LIMIT @n`,
    )
    .raw();

  let rowsRead = 0;
  const count = (rows: Row[]): IndexedToken[] => {
    rowsRead += rows.length;
    return rows.map(toToken);
  };

  return {
    /** Rows returned by this repo's reads so far (the measure of a search's cost). */
    rowsRead: (): number => rowsRead,
    byAddress(address: string): IndexedToken | undefined {
      const row = byAddress.get(address);
      if (row !== undefined) rowsRead++;
      return row === undefined ? undefined : toToken(row);
    },
    /** Up to `n` tokens whose folded symbol is `sym`, with addresses after `after`, by address. */
    bySymbol: (sym: string, after: string, n: number): IndexedToken[] => count(bySymbol.all({ sym, after, n })),
    /** Up to `n` tokens whose folded symbol starts with `prefix`, after (sym, address) = `from`, by (sym, address). */
    bySymbolPrefix: (prefix: string, from: { sym: string; address: string }, n: number): IndexedToken[] => {
      const seek = prefixSeek(prefix, from);
      return count(bySymbolPrefix.all({ hi: prefixEnd(prefix), sym: seek.sym, after: seek.address, n }));
    },
    /** Up to `n` tokens with addresses after `after`, by address. */
    inAddressOrder: (after: string, n: number): IndexedToken[] => count(inAddressOrder.all({ after, n })),
    /**
     * Up to `n` tokens whose folded name contains `text` (three or more characters: the trigram
     * index cannot answer shorter ones), with ids after `after`, by id.
     */
    byName: (text: string, after: number, n: number): IndexedToken[] =>
      // Names never hold control characters (ingest refuses them), and FTS5 reads NUL as the end
      // of its query string: such a text matches no name.
      holdsControl(text) ? [] : count(byName.all({ match: `"${text.replaceAll('"', '""')}"`, after, n })),
    /** Up to `n` tokens whose folded name contains `gram` (one or two characters), with ids after `after`, by id. */
    byShortName: (gram: string, after: number, n: number): IndexedToken[] => count(byGram.all({ gram, after, n })),
  };
}
