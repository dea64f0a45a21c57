/**
 * The token change log on PostgreSQL: the reads of src/store/token-changes-repo.ts (same answers,
 * each a promise). Entries are numbered in inWriteOrder() transactions (src/store/pg/write-order.ts),
 * so a reader that saw entry N never misses an entry below N that commits later.
 */
import type { Async } from '../async.js';
import type { createTokenChangesRepo } from '../token-changes-repo.js';
import { row, rows, type Queryable } from './pg-repo.js';

export type PgTokenChangesRepo = Async<ReturnType<typeof createTokenChangesRepo>>;

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
