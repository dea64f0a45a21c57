/**
 * The webhook outbox: deliveries waiting, in flight (claimed), delivered, failed or cancelled.
 * Times are milliseconds of the service clock.
 */
import type { Db } from './db.js';
import type { DeliveryRow, DueDelivery, WebhookOutboxRepo } from '../port/operations.js';

// The interface and row types are the port's (src/store/port/operations.ts), named here too.
export type { DeliveryRow, DueDelivery, WebhookOutboxRepo } from '../port/operations.js';

export function createWebhookOutboxRepo(db: Db): WebhookOutboxRepo {
  const s = {
    enqueue: db.prepare(`INSERT INTO webhook_deliveries (event_id, subscription_id, status, due_at, deadline_at)
      VALUES (?, ?, 'pending', ?, ?)`),
    due: db.prepare(`SELECT d.id, d.attempts, d.due_at AS dueAt, d.deadline_at AS deadlineAt, e.id AS eventId,
        e.tenant_id AS tenantId, e.token, e.created_at AS createdAt, e.data, s.webhook_url AS webhookUrl, w.secret
      FROM webhook_deliveries d
      JOIN events e ON e.id = d.event_id
      JOIN subscriptions s ON s.id = d.subscription_id
      LEFT JOIN webhook_secrets w ON w.tenant_id = e.tenant_id
      WHERE d.status = 'pending' AND d.due_at <= ? AND e.tenant_id NOT IN (SELECT value FROM json_each(?))
      ORDER BY d.due_at, d.id LIMIT ?`),
    claim: db.prepare(`UPDATE webhook_deliveries SET due_at = @leaseUntil
      WHERE id = @id AND status = 'pending' AND due_at = @dueAt`),
    delivered: db.prepare(`UPDATE webhook_deliveries SET status = 'delivered', attempts = @attempts, last_status = @lastStatus,
      last_error = NULL, done_at = @now WHERE id = @id AND status = 'pending'`),
    retry: db.prepare(`UPDATE webhook_deliveries SET attempts = @attempts, due_at = @dueAt, last_status = @lastStatus,
      last_error = @lastError WHERE id = @id AND status = 'pending'`),
    finish: db.prepare(`UPDATE webhook_deliveries SET status = @status, attempts = @attempts, last_status = @lastStatus,
      last_error = @lastError, done_at = @now WHERE id = @id AND status = 'pending'`),
    byEvent: db.prepare(`SELECT id, event_id AS eventId, subscription_id AS subscriptionId, status, attempts, due_at AS dueAt,
      deadline_at AS deadlineAt, last_status AS lastStatus, last_error AS lastError, done_at AS doneAt
      FROM webhook_deliveries WHERE event_id = ? ORDER BY id`),
    pending: db.prepare<[], number>("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'").pluck(),
  };
  type Outcome = { id: number; attempts: number; lastStatus: number | null; lastError: string | null };
  return {
    enqueue: (eventId: number, subscriptionId: string, dueAt: number, deadlineAt: number) => void s.enqueue.run(eventId, subscriptionId, dueAt, deadlineAt),
    /** Due deliveries, oldest first, leaving out the tenants in `skipTenants` (those at their in-flight cap). */
    due: (now: number, limit: number, skipTenants: readonly string[] = []) => s.due.all(now, JSON.stringify(skipTenants), limit) as DueDelivery[],
    /** Takes a due delivery for one attempt: true when this caller got it (nobody else did). */
    claim: (id: number, dueAt: number, leaseUntil: number) => s.claim.run({ id, dueAt, leaseUntil }).changes === 1,
    delivered: (o: Outcome & { now: number }) => void s.delivered.run({ id: o.id, attempts: o.attempts, lastStatus: o.lastStatus, now: o.now }),
    retry: (o: Outcome & { dueAt: number }) => void s.retry.run(o),
    finish: (o: Outcome & { status: 'failed' | 'cancelled'; now: number }) => void s.finish.run(o),
    byEvent: (eventId: number) => s.byEvent.all(eventId) as DeliveryRow[],
    pendingCount: () => s.pending.get()!,
  };
}
