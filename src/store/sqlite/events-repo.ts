/** Events (one row per tenant, token and chunk of trades) and their pruning. */
import type { Db } from './db.js';
import type { EventRow, EventsRepo } from '../port/operations.js';

// The interface and row types are the port's (src/store/port/operations.ts), named here too.
export type { EventRow, EventsRepo } from '../port/operations.js';

const COLUMNS = 'id, tenant_id AS tenantId, token, created_at AS createdAt, data';

export function createEventsRepo(db: Db): EventsRepo {
  const s = {
    insert: db
      .prepare<[string, string, number, string], number>('INSERT INTO events (tenant_id, token, created_at, data) VALUES (?, ?, ?, ?) RETURNING id')
      .pluck(),
    page: db.prepare(`SELECT ${COLUMNS} FROM events
      WHERE tenant_id = @tenantId AND id > @after AND created_at >= @since ORDER BY id LIMIT @limit`),
    prune: db.prepare('DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < ? ORDER BY created_at LIMIT ?)'),
    count: db.prepare<[string], number>('SELECT count(*) FROM events WHERE tenant_id = ?').pluck(),
  };
  return {
    /** Inserts an event; returns its id. */
    insert: (tenantId: string, token: string, createdAt: number, data: string) => s.insert.get(tenantId, token, createdAt, data)!,
    /** The tenant's events after `after` (an id), created at or after `since`, oldest first. */
    page: (tenantId: string, after: number, since: number, limit: number) => s.page.all({ tenantId, after, since, limit }) as EventRow[],
    /** Deletes at most `limit` events created before `before`; returns how many went. */
    prune: (before: number, limit: number) => s.prune.run(before, limit).changes,
    count: (tenantId: string) => s.count.get(tenantId)!,
  };
}
