/**
 * The token change log on PostgreSQL: the reads of src/store/sqlite/token-changes-repo.ts (same answers,
 * each a promise). Entries are numbered in inWriteOrder() transactions (src/store/pg/write-order.ts),
 * so a reader that saw entry N never misses an entry below N that commits later.
 */
import { TOKEN_CHANGES_KEEP, TOKEN_CHANGES_PRUNE_EVERY } from '../shared/token-changes.js';
import type { Async } from '../port/async.js';
import type { TokenChangesRepo } from '../port/repos.js';
import { row, rows, type Queryable } from './pg-repo.js';

export type PgTokenChangesRepo = Async<TokenChangesRepo>;

export function createPgTokenChangesRepo(db: Queryable): PgTokenChangesRepo {
  const last = async (): Promise<number> => (await row<{ n: number | null }>(db, 'SELECT max(seq) AS n FROM token_changes'))!.n ?? 0;
  return {
    async bounds() {
      const r = (await row<{ first: number | null; last: number | null }>(db, 'SELECT min(seq) AS first, max(seq) AS last FROM token_changes'))!;
      return { first: r.first ?? 0, last: r.last ?? 0 };
    },
    last,
    // In the order of each token's first entry, as SQLite's DISTINCT over the seq range gives them.
    since: async (after, upTo) =>
      (
        await rows<{ id: number }>(db, 'SELECT token_id AS id FROM token_changes WHERE seq > $1 AND seq <= $2 GROUP BY token_id ORDER BY min(seq)', [
          after,
          upTo,
        ])
      ).map((r) => r.id),
  };
}

/** Entries kept, and how often pruning runs (src/store/shared/token-changes.ts). */
const KEEP = TOKEN_CHANGES_KEEP;
const PRUNE_EVERY = TOKEN_CHANGES_PRUNE_EVERY;

/**
 * The change log's half of the discovery hook: appends the tokens an ingest transaction touched,
 * in their order, and prunes to the newest KEEP entries every PRUNE_EVERY batches. Call the
 * function it returns with the client of the ingest's inWriteOrder() transaction, so entries
 * are numbered in commit order; the batch count is this instance's, as on SQLite it is the
 * process's.
 */
export function pgTokenChangesWriter(): (client: Queryable, touchedTokens: ReadonlySet<number>) => Promise<void> {
  const pruner = pgTokenChangesPruner();
  return async (client, touchedTokens) => {
    if (touchedTokens.size > 0) await client.query(TOKEN_CHANGES_APPEND, [[...touchedTokens]]);
    await pruner(client);
  };
}

/** Appends the tokens of $1 (bigint[]) to the change log in their order; a part of a statement (combined.ts) too. */
export const TOKEN_CHANGES_APPEND = 'INSERT INTO token_changes (token_id) SELECT id FROM unnest($1::bigint[]) WITH ORDINALITY AS u (id, n) ORDER BY n';

/** The pruning half of pgTokenChangesWriter(), for a caller that appends in a statement of its own: call once a batch. */
export function pgTokenChangesPruner(): (client: Queryable) => Promise<void> {
  let batches = 0;
  return async (client) => {
    if (++batches % PRUNE_EVERY === 0) {
      await client.query(`DELETE FROM token_changes WHERE seq <= (SELECT max(seq) FROM token_changes) - ${KEEP}`);
    }
  };
}
