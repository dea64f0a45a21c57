/**
 * Tenants and API keys: the operations shared by the CLI, `/v1/keys` and the dashboard.
 * Secrets are returned once, by the call that makes them, and never stored.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/db.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { newId, newKeySecret } from '../domain/api-key.js';
import { createAccountsRepo, type KeyRow, type Tenant } from '../store/accounts-repo.js';

export type KeyStatus = 'active' | 'expiring' | 'revoked' | 'expired';

/** The public view of a key (K in DESIGN.md section 7). */
export type KeyView = {
  id: string;
  name: string | null;
  prefix: string;
  last4: string;
  scopes: string[];
  status: KeyStatus;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
};

export const PLAN_NAMES = ['free', 'pro', 'enterprise'] as const;
export const SCOPES = ['read', 'ingest'] as const;
export type Scope = (typeof SCOPES)[number];

export class AccountError extends Error {
  constructor(readonly kind: 'not_found' | 'conflict' | 'invalid', message: string) {
    super(message);
  }
}

export function keyStatus(k: KeyRow, now: number): KeyStatus {
  if (k.revokedAt !== null) return 'revoked';
  if (k.expiresAt !== null) return k.expiresAt <= now ? 'expired' : 'expiring';
  return 'active';
}

export function keyView(k: KeyRow, now: number): KeyView {
  return {
    id: k.id, name: k.name, prefix: k.prefix, last4: k.last4, scopes: k.scopes, status: keyStatus(k, now),
    createdAt: k.createdAt, lastUsedAt: k.lastUsedAt, expiresAt: k.expiresAt, revokedAt: k.revokedAt,
  };
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export function verifyPassword(password: string, stored: string): boolean {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = scryptSync(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}

export function createAccounts(deps: { store: Store; clock: Clock }) {
  const repo = createAccountsRepo(deps.store.db);
  const now = () => nowSeconds(deps.clock);
  const changed = () => deps.store.notifyChange({ tokens: new Set(), accounts: true });

  const requireTenant = (id: string): Tenant => {
    const t = repo.tenant(id);
    if (!t) throw new AccountError('not_found', `no tenant with id ${id}`);
    return t;
  };

  return {
    repo,

    createTenant(input: { name: string; plan: string; email?: string | null }): Tenant {
      if (!repo.plan(input.plan)) throw new AccountError('invalid', `unknown plan ${input.plan}`);
      const email = input.email ?? null;
      if (email !== null && repo.tenantByEmail(email)) throw new AccountError('conflict', `a tenant with email ${email} exists`);
      const tenant: Tenant = { id: newId('ten'), name: input.name, plan: input.plan, email, createdAt: now() };
      repo.insertTenant(tenant);
      return tenant;
    },

    setPassword(tenantId: string, password: string): void {
      requireTenant(tenantId);
      if (password.length < 8 || password.length > 1024) throw new AccountError('invalid', 'a password has 8 to 1024 characters');
      repo.setPassword(tenantId, hashPassword(password));
    },

    /** The tenant whose email and password match, or null. Always does the hashing work. */
    checkPassword(email: string, password: string): Tenant | null {
      const tenant = repo.tenantByEmail(email);
      const stored = tenant ? repo.passwordHash(tenant.id) : null;
      const ok = verifyPassword(password, stored ?? hashPassword('timing-equaliser'));
      return tenant && stored && ok ? tenant : null;
    },

    tenants: () => repo.tenants(),
    tenant: (id: string) => repo.tenant(id),

    /**
     * Creates a key. Plan caps are the caller's to check (the CLI may exceed them on purpose).
     * Returns the secret, which is not kept.
     */
    createKey(tenantId: string, opts: { name?: string | null; scopes?: readonly Scope[]; expiresAt?: number | null } = {}) {
      requireTenant(tenantId);
      const s = newKeySecret();
      const id = newId('key');
      repo.insertKey({
        id, tenantId, name: opts.name ?? null, hash: s.hash, prefix: s.prefix, last4: s.last4,
        scopes: [...(opts.scopes ?? ['read'])], createdAt: now(), expiresAt: opts.expiresAt ?? null,
      });
      return { key: keyView(repo.key(id)!, now()), secret: s.secret };
    },

    listKeys(tenantId: string): KeyView[] {
      requireTenant(tenantId);
      const t = now();
      return repo.keys(tenantId).map((k) => keyView(k, t));
    },

    /** Revokes a key (again is fine). `tenantId` limits it to that tenant's keys. */
    revokeKey(keyId: string, tenantId?: string): KeyView {
      const k = repo.key(keyId);
      if (!k || (tenantId !== undefined && k.tenantId !== tenantId)) throw new AccountError('not_found', `no key with id ${keyId}`);
      repo.revoke(keyId, now());
      changed();
      return keyView(repo.key(keyId)!, now());
    },

    /** Tells caches that keys changed (used after writes made outside this service). */
    changed,
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
