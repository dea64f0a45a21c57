/**
 * Events on PostgreSQL: the twin of src/store/sqlite/events-repo.ts (same answers for the same calls,
 * each a promise). insert() numbers a row: call it on a repo built on the client of an
 * inWriteOrder() transaction (src/store/pg/write-order.ts), so ids become visible in id order and
 * the events feed never skips a row that commits late (docs/operations.md, Many instances).
 */
import type { Async } from '../port/async.js';
import type { EventRow, EventsRepo } from '../port/repos.js';
import { changes, row, rows, type Queryable } from './pg-repo.js';

export type PgEventsRepo = Async<EventsRepo>;

export function createPgEventsRepo(db: Queryable): PgEventsRepo {
  return {
    insert: async (tenantId, token, createdAt, data) =>
      (await row<{ id: number }>(db, 'INSERT INTO events (tenant_id, token, created_at, data) VALUES ($1, $2, $3, $4) RETURNING id', [
        tenantId,
        token,
        createdAt,
        data,
      ]))!.id,
    page: (tenantId, after, since, limit) =>
      rows<EventRow>(
        db,
        `SELECT id, tenant_id AS "tenantId", token, created_at AS "createdAt", data FROM events
         WHERE tenant_id = $1 AND id > $2 AND created_at >= $3 ORDER BY id LIMIT $4`,
        [tenantId, after, since, limit],
      ),
    // Ties on created_at go in id order, as SQLite reads them from its (created_at, rowid) index,
    // so both engines prune the same rows.
    prune: (before, limit) =>
      changes(db, 'DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < $1 ORDER BY created_at, id LIMIT $2)', [before, limit]),
    count: async (tenantId) => (await row<{ n: number }>(db, 'SELECT count(*) AS n FROM events WHERE tenant_id = $1', [tenantId]))!.n,
  };
}
