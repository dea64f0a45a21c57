/**
 * The webhook outbox on PostgreSQL: the twin of src/store/sqlite/webhook-outbox-repo.ts (same methods,
 * same rows, each answer a promise), plus claimDue(), which is how several instances share the
 * outbox (docs/operations.md, Many instances): it picks due rows with FOR UPDATE SKIP LOCKED and
 * leases them in the same statement, so two instances never take the same row, none waits on
 * another's, and a row whose instance died mid-delivery comes due again when its lease ends.
 * claim() keeps the SQLite repo's compare-and-set on due_at, which PostgreSQL also makes safe
 * between instances (the second UPDATE re-reads the row the first changed and matches nothing).
 */
import type pg from 'pg';
import type { DeliveryRow, DueDelivery } from '../port/repos.js';

type Outcome = { id: number; attempts: number; lastStatus: number | null; lastError: string | null };

const DUE_COLUMNS = `d.id, d.attempts, d.due_at AS "dueAt", d.deadline_at AS "deadlineAt", e.id AS "eventId",
  e.tenant_id AS "tenantId", e.token, e.created_at AS "createdAt", e.data, s.webhook_url AS "webhookUrl", w.secret`;
const DUE_JOINS = `JOIN events e ON e.id = d.event_id
  JOIN subscriptions s ON s.id = d.subscription_id
  LEFT JOIN webhook_secrets w ON w.tenant_id = e.tenant_id`;

/** `db` is a pool (or a client inside a transaction): every method is one statement. */
export function createPgWebhookOutboxRepo(db: pg.Pool | pg.ClientBase) {
  const rows = async <R extends object>(sql: string, params: unknown[]): Promise<R[]> => (await db.query<R>(sql, params)).rows;
  const changed = async (sql: string, params: unknown[]): Promise<number> => (await db.query(sql, params)).rowCount ?? 0;

  return {
    async enqueue(eventId: number, subscriptionId: string, dueAt: number, deadlineAt: number): Promise<undefined> {
      await db.query(`INSERT INTO webhook_deliveries (event_id, subscription_id, status, due_at, deadline_at) VALUES ($1, $2, 'pending', $3, $4)`, [
        eventId,
        subscriptionId,
        dueAt,
        deadlineAt,
      ]);
    },
    /** Due deliveries, oldest first, leaving out the tenants in `skipTenants` (those at their in-flight cap). */
    due: (now: number, limit: number, skipTenants: readonly string[] = []): Promise<DueDelivery[]> =>
      rows<DueDelivery>(
        `SELECT ${DUE_COLUMNS} FROM webhook_deliveries d ${DUE_JOINS}
         WHERE d.status = 'pending' AND d.due_at <= $1 AND e.tenant_id <> ALL($2::text[])
         ORDER BY d.due_at, d.id LIMIT $3`,
        [now, skipTenants, limit],
      ),
    /** Takes a due delivery for one attempt: true when this caller got it (nobody else did). */
    claim: async (id: number, dueAt: number, leaseUntil: number): Promise<boolean> =>
      (await changed(`UPDATE webhook_deliveries SET due_at = $3 WHERE id = $1 AND status = 'pending' AND due_at = $2`, [id, dueAt, leaseUntil])) === 1,
    /**
     * Takes up to `limit` due deliveries at once, oldest first, leased until `leaseUntil`: rows
     * another instance is taking at this moment are skipped, not waited for. The answers carry the
     * due_at they had before the lease, as due() gives it.
     */
    claimDue: (now: number, limit: number, leaseUntil: number, skipTenants: readonly string[] = []): Promise<DueDelivery[]> =>
      rows<DueDelivery>(
        `WITH picked AS (
           SELECT d.id, d.due_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
           WHERE d.status = 'pending' AND d.due_at <= $1 AND e.tenant_id <> ALL($2::text[])
           ORDER BY d.due_at, d.id LIMIT $3
           FOR UPDATE OF d SKIP LOCKED
         ), leased AS (
           UPDATE webhook_deliveries d SET due_at = $4 FROM picked WHERE d.id = picked.id
           RETURNING d.id, d.attempts, picked.due_at, d.deadline_at, d.event_id, d.subscription_id
         )
         SELECT d.id, d.attempts, d.due_at AS "dueAt", d.deadline_at AS "deadlineAt", e.id AS "eventId",
           e.tenant_id AS "tenantId", e.token, e.created_at AS "createdAt", e.data, s.webhook_url AS "webhookUrl", w.secret
         FROM leased d ${DUE_JOINS}
         ORDER BY d.due_at, d.id`,
        [now, skipTenants, limit, leaseUntil],
      ),
    async delivered(o: Outcome & { now: number }): Promise<undefined> {
      await db.query(
        `UPDATE webhook_deliveries SET status = 'delivered', attempts = $2, last_status = $3, last_error = NULL, done_at = $4
         WHERE id = $1 AND status = 'pending'`,
        [o.id, o.attempts, o.lastStatus, o.now],
      );
    },
    async retry(o: Outcome & { dueAt: number }): Promise<undefined> {
      await db.query(`UPDATE webhook_deliveries SET attempts = $2, due_at = $3, last_status = $4, last_error = $5 WHERE id = $1 AND status = 'pending'`, [
        o.id,
        o.attempts,
        o.dueAt,
        o.lastStatus,
        o.lastError,
      ]);
    },
    async finish(o: Outcome & { status: 'failed' | 'cancelled'; now: number }): Promise<undefined> {
      await db.query(
        `UPDATE webhook_deliveries SET status = $2, attempts = $3, last_status = $4, last_error = $5, done_at = $6
         WHERE id = $1 AND status = 'pending'`,
        [o.id, o.status, o.attempts, o.lastStatus, o.lastError, o.now],
      );
    },
    byEvent: (eventId: number): Promise<DeliveryRow[]> =>
      rows<DeliveryRow>(
        `SELECT id, event_id AS "eventId", subscription_id AS "subscriptionId", status, attempts, due_at AS "dueAt",
           deadline_at AS "deadlineAt", last_status AS "lastStatus", last_error AS "lastError", done_at AS "doneAt"
         FROM webhook_deliveries WHERE event_id = $1 ORDER BY id`,
        [eventId],
      ),
    pendingCount: async (): Promise<number> => (await rows<{ n: number }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'`, []))[0]!.n,
  };
}

export type PgWebhookOutboxRepo = ReturnType<typeof createPgWebhookOutboxRepo>;
