/** Tenants, plans and API keys: the rows behind accounts, keys and authentication. */
import { writeTransaction, type Db } from './db.js';
import { scopesColumn, withScopes } from '../shared/key-scopes.js';
import type { AccountsRepo, KeyRow, NewKey, Plan, Tenant } from '../port/accounts.js';

// The interface and row types are the port's (src/store/port/accounts.ts), named here too.
export type { AccountsRepo, KeyRow, Plan, Tenant } from '../port/accounts.js';

type RawKey = Omit<KeyRow, 'scopes'> & { scopes: string };
const toKey = (r: RawKey): KeyRow => withScopes(r);

const KEY_COLUMNS = `id, tenant_id AS tenantId, name, prefix, last4, scopes, created_at AS createdAt,
  last_used_at AS lastUsedAt, expires_at AS expiresAt, revoked_at AS revokedAt`;

export function createAccountsRepo(db: Db): AccountsRepo {
  const s = {
    plan: db.prepare(`SELECT name, requests_per_minute AS requestsPerMinute, max_keys AS maxKeys,
      max_subscriptions AS maxSubscriptions FROM plans WHERE name = ?`),
    insertTenant: db.prepare('INSERT INTO tenants (id, name, plan, email, created_at) VALUES (@id, @name, @plan, @email, @createdAt)'),
    tenant: db.prepare('SELECT id, name, plan, email, created_at AS createdAt FROM tenants WHERE id = ?'),
    tenantByEmail: db.prepare('SELECT id, name, plan, email, created_at AS createdAt FROM tenants WHERE email = ?'),
    tenants: db.prepare('SELECT id, name, plan, email, created_at AS createdAt FROM tenants ORDER BY created_at, id'),
    passwordHash: db.prepare('SELECT password_hash FROM tenants WHERE id = ?').pluck(),
    setPassword: db.prepare('UPDATE tenants SET password_hash = ? WHERE id = ?'),
    insertKey: db.prepare(`INSERT INTO api_keys (id, tenant_id, name, hash, prefix, last4, scopes, created_at, expires_at)
      VALUES (@id, @tenantId, @name, @hash, @prefix, @last4, @scopes, @createdAt, @expiresAt)`),
    key: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = ?`),
    keyByHash: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = ?`),
    keys: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = ? ORDER BY created_at, id`),
    setEmail: db.prepare('UPDATE tenants SET email = ? WHERE id = ?'),
    revoke: db.prepare('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?'),
    setExpiry: db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?'),
    touch: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
    // "Active" as in keyStatus: neither revoked nor carrying an expiry (rotation grace included).
    countActive: db.prepare('SELECT count(*) FROM api_keys WHERE tenant_id = ? AND revoked_at IS NULL AND expires_at IS NULL').pluck(),
  };
  return {
    plan: (name: string) => s.plan.get(name) as Plan | undefined,
    insertTenant: (t: Tenant) => void s.insertTenant.run(t),
    tenant: (id: string) => s.tenant.get(id) as Tenant | undefined,
    tenantByEmail: (email: string) => s.tenantByEmail.get(email) as Tenant | undefined,
    tenants: () => s.tenants.all() as Tenant[],
    passwordHash: (id: string) => s.passwordHash.get(id) as string | null | undefined,
    setPassword: (id: string, hash: string) => s.setPassword.run(hash, id).changes > 0,
    setEmail: (id: string, email: string) => s.setEmail.run(email, id).changes > 0,
    insertKey: (k: NewKey) => void s.insertKey.run({ ...k, scopes: scopesColumn(k.scopes) }),
    key: (id: string) => {
      const r = s.key.get(id) as RawKey | undefined;
      return r && toKey(r);
    },
    keyByHash: (hash: Buffer) => {
      const r = s.keyByHash.get(hash) as RawKey | undefined;
      return r && toKey(r);
    },
    keys: (tenantId: string) => (s.keys.all(tenantId) as RawKey[]).map(toKey),
    revoke: (id: string, now: number) => void s.revoke.run(now, id),
    setExpiry: (id: string, expiresAt: number) => void s.setExpiry.run(expiresAt, id),
    touch: (id: string, now: number) => void s.touch.run(now, id),
    /** Keys of a tenant that are neither revoked nor expiring: what the plan's maxKeys caps. */
    countActiveKeys: (tenantId: string) => s.countActive.get(tenantId) as number,
    /** Runs `fn` in one IMMEDIATE transaction, so a count and the insert it allows are atomic. */
    inTransaction: <T>(fn: () => T): T => writeTransaction(db, fn)(),
  };
}
