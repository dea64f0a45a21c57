/**
 * Tenants, plans and API keys on PostgreSQL: the twin of src/store/sqlite/accounts-repo.ts (same
 * answers for the same calls, each a promise). Emails are one per tenant case-insensitively
 * (SQLite's COLLATE NOCASE): looked up by lower(email), which under "C" folds ASCII only, as
 * NOCASE does. inTransaction() holds the accounts lock for its whole transaction, so a count and
 * the insert it allows are atomic across instances, as BEGIN IMMEDIATE makes them on SQLite.
 */
import type { Async } from '../port/async.js';
import type { AccountsRepo, KeyRow, Plan, Tenant } from '../port/repos.js';
import { changes, pgTransaction, row, rows, type Queryable } from './pg-repo.js';
import { scopesColumn, withScopes } from '../shared/key-scopes.js';

/** The advisory lock key of account transactions (migrations hold ...0001, numbered writes ...0002). */
export const ACCOUNTS_LOCK_KEY = '7301746852145370003';

type RawKey = Omit<KeyRow, 'scopes'> & { scopes: string };
const toKey = (r: RawKey): KeyRow => withScopes(r);

const KEY_COLUMNS = `id, tenant_id AS "tenantId", name, prefix, last4, scopes, created_at AS "createdAt",
  last_used_at AS "lastUsedAt", expires_at AS "expiresAt", revoked_at AS "revokedAt"`;
const TENANT_COLUMNS = 'id, name, plan, email, created_at AS "createdAt"';

export type PgAccountsRepo = Async<AccountsRepo>;

export function createPgAccountsRepo(db: Queryable): PgAccountsRepo {
  const key = async (where: string, value: unknown): Promise<KeyRow | undefined> => {
    const r = await row<RawKey>(db, `SELECT ${KEY_COLUMNS} FROM api_keys WHERE ${where} = $1`, [value]);
    return r && toKey(r);
  };
  return {
    plan: (name) =>
      row<Plan>(
        db,
        `SELECT name, requests_per_minute AS "requestsPerMinute", max_keys AS "maxKeys", max_subscriptions AS "maxSubscriptions"
         FROM plans WHERE name = $1`,
        [name],
      ),
    async insertTenant(t) {
      await db.query('INSERT INTO tenants (id, name, plan, email, created_at) VALUES ($1, $2, $3, $4, $5)', [t.id, t.name, t.plan, t.email, t.createdAt]);
    },
    tenant: (id) => row<Tenant>(db, `SELECT ${TENANT_COLUMNS} FROM tenants WHERE id = $1`, [id]),
    tenantByEmail: (email) => row<Tenant>(db, `SELECT ${TENANT_COLUMNS} FROM tenants WHERE lower(email) = lower($1)`, [email]),
    tenants: () => rows<Tenant>(db, `SELECT ${TENANT_COLUMNS} FROM tenants ORDER BY created_at, id`),
    passwordHash: async (id) => (await row<{ h: string | null }>(db, 'SELECT password_hash AS h FROM tenants WHERE id = $1', [id]))?.h,
    setPassword: async (id, hash) => (await changes(db, 'UPDATE tenants SET password_hash = $1 WHERE id = $2', [hash, id])) > 0,
    setEmail: async (id, email) => (await changes(db, 'UPDATE tenants SET email = $1 WHERE id = $2', [email, id])) > 0,
    async insertKey(k) {
      await db.query(
        `INSERT INTO api_keys (id, tenant_id, name, hash, prefix, last4, scopes, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [k.id, k.tenantId, k.name, k.hash, k.prefix, k.last4, scopesColumn(k.scopes), k.createdAt, k.expiresAt],
      );
    },
    key: (id) => key('id', id),
    keyByHash: (hash) => key('hash', hash),
    keys: async (tenantId) =>
      (await rows<RawKey>(db, `SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, id`, [tenantId])).map(toKey),
    async revoke(id, now) {
      await db.query('UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2', [now, id]);
    },
    async setExpiry(id, expiresAt) {
      await db.query('UPDATE api_keys SET expires_at = $1 WHERE id = $2', [expiresAt, id]);
    },
    async touch(id, now) {
      await db.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [now, id]);
    },
    countActiveKeys: async (tenantId) =>
      (await row<{ n: number }>(db, 'SELECT count(*) AS n FROM api_keys WHERE tenant_id = $1 AND revoked_at IS NULL AND expires_at IS NULL', [tenantId]))!.n,
    inTransaction: (fn) => pgTransaction(db, ACCOUNTS_LOCK_KEY, (client) => fn(createPgAccountsRepo(client))),
  };
}
