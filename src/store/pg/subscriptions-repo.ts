/**
 * Subscriptions and webhook signing secrets on PostgreSQL: the twin of
 * src/store/sqlite/subscriptions-repo.ts (same answers for the same calls, each a promise). The events
 * hook reads subscribers() inside the ingest's transaction: build this repo on that
 * transaction's client there (docs/operations.md, Many instances).
 */
import type { Async } from '../port/async.js';
import type { Subscriber, Subscription, SubscriptionsRepo } from '../port/repos.js';
import { changes, pgTransaction, row, rows, type Queryable } from './pg-repo.js';

/** The advisory lock key of subscription transactions (a count and the insert it allows, on every instance). */
export const SUBSCRIPTIONS_LOCK_KEY = '7301746852145370004';

const COLUMNS = 'id, address, webhook_url AS "webhookUrl", created_at AS "createdAt"';

export type PgSubscriptionsRepo = Async<SubscriptionsRepo>;

export function createPgSubscriptionsRepo(db: Queryable): PgSubscriptionsRepo {
  return {
    find: (tenantId, address) => row<Subscription>(db, `SELECT ${COLUMNS} FROM subscriptions WHERE tenant_id = $1 AND address = $2`, [tenantId, address]),
    list: (tenantId) => rows<Subscription>(db, `SELECT ${COLUMNS} FROM subscriptions WHERE tenant_id = $1 ORDER BY created_at, id`, [tenantId]),
    any: async () => (await row<{ one: number }>(db, 'SELECT 1 AS one FROM subscriptions LIMIT 1')) !== undefined,
    count: async (tenantId) => (await row<{ n: number }>(db, 'SELECT count(*) AS n FROM subscriptions WHERE tenant_id = $1', [tenantId]))!.n,
    async insert(r) {
      await db.query('INSERT INTO subscriptions (id, tenant_id, address, webhook_url, created_at) VALUES ($1, $2, $3, $4, $5)', [
        r.id,
        r.tenantId,
        r.address,
        r.webhookUrl,
        r.createdAt,
      ]);
    },
    async setWebhook(id, url) {
      await db.query('UPDATE subscriptions SET webhook_url = $1 WHERE id = $2', [url, id]);
    },
    remove: async (id) => (await changes(db, 'DELETE FROM subscriptions WHERE id = $1', [id])) > 0,
    subscribers: (address) =>
      rows<Subscriber>(
        db,
        `SELECT id AS "subscriptionId", tenant_id AS "tenantId", webhook_url AS "webhookUrl" FROM subscriptions WHERE address = $1 ORDER BY tenant_id`,
        [address],
      ),
    maxSubscriptions: async (tenantId) =>
      (await row<{ n: number }>(db, 'SELECT p.max_subscriptions AS n FROM tenants t JOIN plans p ON p.name = t.plan WHERE t.id = $1', [tenantId]))?.n,
    webhookSecret: async (tenantId) => (await row<{ s: string }>(db, 'SELECT secret AS s FROM webhook_secrets WHERE tenant_id = $1', [tenantId]))?.s,
    async insertWebhookSecret(tenantId, secret, now) {
      await db.query('INSERT INTO webhook_secrets (tenant_id, secret, created_at) VALUES ($1, $2, $3)', [tenantId, secret, now]);
    },
    inTransaction: (fn) => pgTransaction(db, SUBSCRIPTIONS_LOCK_KEY, (client) => fn(createPgSubscriptionsRepo(client))),
  };
}
