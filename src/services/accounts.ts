/**
 * Tenants and API keys: the operations shared by the CLI, `/v1/keys` and the dashboard.
 * Secrets are returned once, by the call that makes them, and never stored.
 */
import type { StoreHandle } from '../store/port/handle.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { newId, newKeySecret } from '../domain/api-key.js';
import type { KeyRow, Repos, Tenant } from '../store/port/repos.js';
import { dummyHash, hashPassword, verifyPassword } from './passwords.js';

export type KeyStatus = 'active' | 'expiring' | 'revoked' | 'expired';

/** The public view of a key (K in docs/api.md, Authentication and keys). */
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
export const SCOPES = ['read', 'manage', 'ingest'] as const;
export type Scope = (typeof SCOPES)[number];
/** Scopes a key may grant through the API; `ingest` is granted by the operator CLI only (docs/api.md, Authentication and keys). */
export const GRANTABLE_SCOPES: readonly Scope[] = ['read', 'manage'];

/** Longest rotation grace period (seconds): one day. */
export const MAX_GRACE_SECONDS = 86_400;
/** Longest key name (characters). */
export const MAX_KEY_NAME = 100;

/**
 * A refused account operation. `inactive`: the key exists but is revoked or expired;
 * `unauthorized`: the calling key itself is no longer valid in the store; `param`
 * names the input at fault, where one is. Its HTTP answer is chosen in one place, with the other
 * services' errors (src/http/service-errors.ts).
 */
export class AccountError extends Error {
  constructor(
    readonly kind: 'not_found' | 'conflict' | 'invalid' | 'inactive' | 'limit' | 'forbidden' | 'unauthorized',
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}

export function keyStatus(k: KeyRow, now: number): KeyStatus {
  if (k.revokedAt !== null) return 'revoked';
  if (k.expiresAt !== null) return k.expiresAt <= now ? 'expired' : 'expiring';
  return 'active';
}

export function keyView(k: KeyRow, now: number): KeyView {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    last4: k.last4,
    scopes: k.scopes,
    status: keyStatus(k, now),
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    expiresAt: k.expiresAt,
    revokedAt: k.revokedAt,
  };
}

/** A key's name: null or 1..100 characters without control characters. */
export function checkKeyName(name: string | null | undefined): string | null {
  if (name === undefined || name === null) return null;
  if (name.length < 1 || name.length > MAX_KEY_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new AccountError('invalid', `a key name has 1 to ${MAX_KEY_NAME} characters and no control characters`, 'name');
  }
  return name;
}

/**
 * The account operations, on `repos.accounts` (either engine). A write that must tell caches
 * (keys changed) calls `store.notifyChange` after its transaction commits, never inside it.
 */
export function createAccounts(deps: { store: Pick<StoreHandle, 'notifyChange'>; clock: Clock; repos: Pick<Repos, 'accounts'> }) {
  const accounts = deps.repos.accounts;
  const now = () => nowSeconds(deps.clock);
  const changed = () => deps.store.notifyChange({ tokens: new Set(), accounts: true });
  type Tx = typeof accounts;

  const requireTenant = async (repo: Tx, id: string): Promise<Tenant> => {
    const t = await repo.tenant(id);
    if (!t) throw new AccountError('not_found', `no tenant with id ${id}`);
    return t;
  };

  const assertBelowCap = async (tx: Tx, tenant: Tenant): Promise<void> => {
    const plan = await tx.plan(tenant.plan);
    const max = plan?.maxKeys ?? 0;
    if ((await tx.countActiveKeys(tenant.id)) >= max) {
      throw new AccountError('limit', `the ${tenant.plan} plan allows ${max} active keys; revoke one first`);
    }
  };

  /**
   * The scopes of the key making a managing call, read in the call's own transaction: creating,
   * rotating and revoking keys never trust a cached key, so a key revoked a moment ago (by any
   * process, heard or not) cannot mint or revoke keys (docs/api.md, Authentication and keys).
   */
  const callingKeyScopes = async (tx: Tx, keyId: string, tenantId: string): Promise<readonly string[]> => {
    const k = await tx.key(keyId);
    if (!k || k.tenantId !== tenantId) throw new AccountError('unauthorized', 'the API key is not valid');
    const status = keyStatus(k, now());
    if (status === 'revoked') throw new AccountError('unauthorized', 'the API key was revoked');
    if (status === 'expired') throw new AccountError('unauthorized', 'the API key has expired');
    if (!k.scopes.includes('manage')) throw new AccountError('forbidden', 'this API key lacks the manage scope');
    return k.scopes;
  };

  const insertKey = async (tx: Tx, tenantId: string, name: string | null, scopes: readonly string[], expiresAt: number | null) => {
    const s = newKeySecret();
    const id = newId('key');
    await tx.insertKey({ id, tenantId, name, hash: s.hash, prefix: s.prefix, last4: s.last4, scopes: [...scopes], createdAt: now(), expiresAt });
    return { row: (await tx.key(id))!, secret: s.secret };
  };

  return {
    /** A new tenant; an email already taken (ASCII case ignored) is AccountError 'conflict'. */
    async createTenant(input: { name: string; plan: string; email?: string | null }): Promise<Tenant> {
      const email = input.email ?? null;
      return accounts.inTransaction(async (tx) => {
        if (!(await tx.plan(input.plan))) throw new AccountError('invalid', `unknown plan ${input.plan}`);
        if (email !== null && (await tx.tenantByEmail(email))) throw new AccountError('conflict', `a tenant with email ${email} exists`);
        const tenant: Tenant = { id: newId('ten'), name: input.name, plan: input.plan, email, createdAt: now() };
        await tx.insertTenant(tenant);
        return tenant;
      });
    },

    /** Sets the password the dashboard signs in with; the tenant must have an email to sign in with. */
    async setPassword(tenantId: string, password: string): Promise<void> {
      const tenant = await requireTenant(accounts, tenantId);
      if (tenant.email === null) {
        throw new AccountError('invalid', `tenant ${tenantId} has no email, so it could never sign in; add one first with tenants set-email`);
      }
      if (password.length < 8 || password.length > 1024) throw new AccountError('invalid', 'a password has 8 to 1024 characters');
      await accounts.setPassword(tenantId, hashPassword(password));
    },

    /** Sets (or changes) the email a tenant signs in with; each email belongs to one tenant. */
    async setEmail(tenantId: string, email: string): Promise<Tenant> {
      return accounts.inTransaction(async (tx) => {
        await requireTenant(tx, tenantId);
        const owner = await tx.tenantByEmail(email);
        if (owner && owner.id !== tenantId) throw new AccountError('conflict', `a tenant with email ${email} exists`);
        await tx.setEmail(tenantId, email);
        return (await tx.tenant(tenantId))!;
      });
    },

    /**
     * The tenant whose email and password match, or null. An unknown email (or a tenant without
     * a password) costs exactly one scrypt too, against a fixed dummy hash, so timing does not
     * tell which emails have accounts.
     */
    async checkPassword(email: string, password: string): Promise<Tenant | null> {
      const tenant = await accounts.tenantByEmail(email);
      const stored = tenant ? await accounts.passwordHash(tenant.id) : null;
      const ok = await verifyPassword(password, stored ?? dummyHash());
      return tenant && stored && ok ? tenant : null;
    },

    tenants: (): Promise<Tenant[]> => accounts.tenants(),
    tenant: (id: string): Promise<Tenant | undefined> => accounts.tenant(id),
    /** A plan by name (undefined when there is none). */
    plan: (name: string) => accounts.plan(name),

    /**
     * Creates a key. Plan caps are the caller's to check (the CLI may exceed them on purpose).
     * Returns the secret, which is not kept.
     */
    async createKey(tenantId: string, opts: { name?: string | null; scopes?: readonly Scope[]; expiresAt?: number | null } = {}) {
      const made = await accounts.inTransaction(async (tx) => {
        await requireTenant(tx, tenantId);
        return insertKey(tx, tenantId, checkKeyName(opts.name), opts.scopes ?? ['read'], opts.expiresAt ?? null);
      });
      changed();
      return { key: keyView(made.row, now()), secret: made.secret };
    },

    /**
     * Issues a key to a tenant, as `POST /v1/keys` and the dashboard do, with `scopes` (default
     * `["read"]`). A key never grants more than its caller holds: a scope outside `callerScopes`,
     * or `ingest` (the CLI's alone), is AccountError 'forbidden' on `scopes`. Throws 'limit' when
     * the tenant already has its plan's maxKeys active keys (keys in a rotation grace period,
     * revoked and expired keys do not count). The count and the insert are one transaction
     * (docs/operations.md, `inTransaction`), so keys issued at once never pass the cap together.
     * The secret is not kept.
     */
    async issueKey(
      tenantId: string,
      opts: { name?: string | null; scopes?: readonly string[]; callerScopes?: readonly string[]; callerKeyId?: string } = {},
    ): Promise<{ key: KeyView; secret: string }> {
      const name = checkKeyName(opts.name);
      const scopes = [...new Set(opts.scopes ?? ['read'])];
      const refuse = (caller: readonly string[]) => {
        const refused = scopes.filter((sc) => !(GRANTABLE_SCOPES as readonly string[]).includes(sc) || !caller.includes(sc));
        if (refused.length > 0) {
          throw new AccountError('forbidden', `this key cannot grant the ${refused.join(', ')} scope${refused.length > 1 ? 's' : ''}`, 'scopes');
        }
      };
      refuse(opts.callerScopes ?? GRANTABLE_SCOPES);
      // Stored in one order, whatever order they were asked in.
      const ordered = SCOPES.filter((sc) => scopes.includes(sc));
      const made = await accounts.inTransaction(async (tx) => {
        // The calling key as the store has it now, not as a cache remembered it.
        if (opts.callerKeyId !== undefined) refuse(await callingKeyScopes(tx, opts.callerKeyId, tenantId));
        const tenant = await requireTenant(tx, tenantId);
        await assertBelowCap(tx, tenant);
        return insertKey(tx, tenantId, name, ordered, null);
      });
      changed();
      return { key: keyView(made.row, now()), secret: made.secret };
    },

    /**
     * Replaces a key: a new key with the same name and scopes, returned with its secret once; the
     * old key's expiresAt becomes now + graceSeconds (0..86400; 0 ends it at once), or stays
     * earlier if it already was. An active key can always be rotated (the swap leaves the count
     * of active keys unchanged); rotating a key already in its grace period adds an active key and
     * is capped by the plan. A revoked or expired key cannot be rotated: AccountError 'invalid'.
     * `callerScopes`, when given, must include every scope of the key: a key cannot mint a key
     * with more rights than its own (AccountError 'forbidden'). `callerKeyId`, the key making the
     * call through the API, is read in the transaction and must still be valid with `manage`
     * (AccountError 'unauthorized' / 'forbidden'); its stored scopes are the ones checked.
     */
    async rotateKey(tenantId: string, keyId: string, graceSeconds: number, callerScopes?: readonly string[], callerKeyId?: string) {
      if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_GRACE_SECONDS) {
        throw new AccountError('invalid', `graceSeconds must be an integer from 0 to ${MAX_GRACE_SECONDS}`, 'graceSeconds');
      }
      const made = await accounts.inTransaction(async (tx) => {
        const t = now();
        const held = callerKeyId !== undefined ? await callingKeyScopes(tx, callerKeyId, tenantId) : callerScopes;
        const old = await tx.key(keyId);
        if (!old || old.tenantId !== tenantId) throw new AccountError('not_found', `no key with id ${keyId}`);
        const status = keyStatus(old, t);
        if (status === 'revoked' || status === 'expired') {
          throw new AccountError('inactive', `key ${keyId} is ${status}; only an active or expiring key can be rotated`, 'id');
        }
        if (held !== undefined) {
          const missing = old.scopes.filter((sc) => !held.includes(sc));
          if (missing.length > 0) throw new AccountError('forbidden', `rotating key ${keyId} needs the ${missing.join(', ')} scope`);
        }
        if (status === 'expiring') await assertBelowCap(tx, await requireTenant(tx, tenantId));
        const expiresAt = Math.min(old.expiresAt ?? Infinity, t + graceSeconds);
        await tx.setExpiry(old.id, expiresAt);
        const fresh = await insertKey(tx, tenantId, old.name, old.scopes, null);
        return { fresh, previous: (await tx.key(old.id))! };
      });
      changed();
      const t = now();
      return { key: keyView(made.fresh.row, t), secret: made.fresh.secret, previous: keyView(made.previous, t) };
    },

    async listKeys(tenantId: string): Promise<KeyView[]> {
      await requireTenant(accounts, tenantId);
      const t = now();
      return (await accounts.keys(tenantId)).map((k) => keyView(k, t));
    },

    /**
     * Revokes a key (again is fine). `tenantId` limits it to that tenant's keys; `callerKeyId`, the
     * key making the call through the API, must still be valid with `manage` in the store.
     */
    async revokeKey(keyId: string, tenantId?: string, callerKeyId?: string): Promise<KeyView> {
      const row = await accounts.inTransaction(async (tx) => {
        if (callerKeyId !== undefined && tenantId !== undefined) await callingKeyScopes(tx, callerKeyId, tenantId);
        const k = await tx.key(keyId);
        if (!k || (tenantId !== undefined && k.tenantId !== tenantId)) throw new AccountError('not_found', `no key with id ${keyId}`);
        await tx.revoke(keyId, now());
        return (await tx.key(keyId))!;
      });
      // After the commit: caches that hold keys drop them before the revoking request answers,
      // on every instance (a `revoke` notice with REDIS_URL, src/coord/wiring.ts).
      deps.store.notifyChange({ tokens: new Set(), accounts: true, revoked: [keyId] });
      return keyView(row, now());
    },

    /** Tells caches that keys changed (used after writes made outside this service). */
    changed,
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
