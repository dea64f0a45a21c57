/** Subscriptions (a tenant's registered tokens) and the tenants' webhook signing secrets. */
import { writeTransaction, type Db } from './db.js';
import type { Subscriber, Subscription, SubscriptionsRepo } from '../port/operations.js';

// The interface and row types are the port's (src/store/port/operations.ts), named here too.
export type { Subscriber, Subscription, SubscriptionsRepo } from '../port/operations.js';

const COLUMNS = 'id, address, webhook_url AS webhookUrl, created_at AS createdAt';

export function createSubscriptionsRepo(db: Db): SubscriptionsRepo {
  const s = {
    one: db.prepare(`SELECT ${COLUMNS} FROM subscriptions WHERE tenant_id = ? AND address = ?`),
    list: db.prepare(`SELECT ${COLUMNS} FROM subscriptions WHERE tenant_id = ? ORDER BY created_at, id`),
    count: db.prepare<[string], number>('SELECT count(*) FROM subscriptions WHERE tenant_id = ?').pluck(),
    insert: db.prepare(`INSERT INTO subscriptions (id, tenant_id, address, webhook_url, created_at)
      VALUES (@id, @tenantId, @address, @webhookUrl, @createdAt)`),
    setWebhook: db.prepare('UPDATE subscriptions SET webhook_url = ? WHERE id = ?'),
    remove: db.prepare('DELETE FROM subscriptions WHERE id = ?'),
    subscribers: db.prepare(`SELECT id AS subscriptionId, tenant_id AS tenantId, webhook_url AS webhookUrl
      FROM subscriptions WHERE address = ? ORDER BY tenant_id`),
    maxSubscriptions: db
      .prepare<[string], number>(
        `SELECT p.max_subscriptions FROM tenants t JOIN plans p ON p.name = t.plan
      WHERE t.id = ?`,
      )
      .pluck(),
    secret: db.prepare<[string], string>('SELECT secret FROM webhook_secrets WHERE tenant_id = ?').pluck(),
    insertSecret: db.prepare('INSERT INTO webhook_secrets (tenant_id, secret, created_at) VALUES (?, ?, ?)'),
    any: db.prepare('SELECT 1 FROM subscriptions LIMIT 1').pluck(),
  };
  return {
    find: (tenantId: string, address: string) => s.one.get(tenantId, address) as Subscription | undefined,
    list: (tenantId: string) => s.list.all(tenantId) as Subscription[],
    count: (tenantId: string) => s.count.get(tenantId)!,
    insert: (row: Subscription & { tenantId: string }) => void s.insert.run(row),
    setWebhook: (id: string, url: string | null) => void s.setWebhook.run(url, id),
    remove: (id: string) => s.remove.run(id).changes > 0,
    /** Whether any tenant subscribes to anything (ingest skips events when none does). */
    any: (): boolean => s.any.get() !== undefined,
    /** The subscribers of a token address, in tenant order. */
    subscribers: (address: string) => s.subscribers.all(address) as Subscriber[],
    /** The plan's cap for a tenant; undefined when the tenant does not exist. */
    maxSubscriptions: (tenantId: string) => s.maxSubscriptions.get(tenantId),
    webhookSecret: (tenantId: string) => s.secret.get(tenantId),
    insertWebhookSecret: (tenantId: string, secret: string, now: number) => void s.insertSecret.run(tenantId, secret, now),
    /** Runs `fn` in one IMMEDIATE transaction, so a count and the insert it allows are atomic. */
    inTransaction: <T>(fn: () => T): T => writeTransaction(db, fn)(),
  };
}
