/**
 * The token change log of migration 009 (docs/api.md, Discovery): every ingest transaction appends the
 * ids of the tokens it touched, in the same transaction, so a reader in any process can ask
 * which tokens changed since the entry it last saw. Kept by an IngestHook that also keeps the
 * search index (one hook for what discovery reads), and pruned to the newest KEEP entries.
 */
import type { Db } from './db.js';
import type { SqliteIngestHook } from '../port/ingest.js';
import { searchIndexHook } from './search-index-repo.js';
import type { TokenChangesRepo } from '../port/tokens.js';
import { TOKEN_CHANGES_KEEP, TOKEN_CHANGES_PRUNE_EVERY } from '../shared/token-changes.js';

// The interface and row types are the port's (src/store/port/tokens.ts), named here too.
export type { TokenChangesRepo } from '../port/tokens.js';

const KEEP = TOKEN_CHANGES_KEEP;
const PRUNE_EVERY = TOKEN_CHANGES_PRUNE_EVERY;

/** The hook for discovery's views: the search index and the token change log. */
export function discoveryHook(db: Db): SqliteIngestHook {
  const search = searchIndexHook(db);
  const append = db.prepare('INSERT INTO token_changes (token_id) VALUES (?)');
  const prune = db.prepare(`DELETE FROM token_changes WHERE seq <= (SELECT max(seq) FROM token_changes) - ${KEEP}`);
  let batches = 0;
  return (batch) => {
    search(batch);
    for (const id of batch.touchedTokens) append.run(id);
    if (++batches % PRUNE_EVERY === 0) prune.run();
  };
}

export function createTokenChangesRepo(db: Db): TokenChangesRepo {
  // Two statements: SQLite reads min() or max() of the key from one end of the table only when
  // the query has just that one aggregate.
  const first = db.prepare<[], number | null>('SELECT min(seq) FROM token_changes').pluck();
  const last = db.prepare<[], number | null>('SELECT max(seq) FROM token_changes').pluck();
  const since = db.prepare<[number, number], number>('SELECT DISTINCT token_id FROM token_changes WHERE seq > ? AND seq <= ?').pluck();
  return {
    /** The oldest and newest entry (0, 0 when the log is empty). */
    bounds: (): { first: number; last: number } => ({ first: first.get() ?? 0, last: last.get() ?? 0 }),
    /** The newest entry (0 when the log is empty). */
    last: (): number => last.get() ?? 0,
    /** The tokens of the entries after `after`, up to and including `upTo`. */
    since: (after: number, upTo: number): number[] => since.all(after, upTo),
  };
}
