/**
 * The port's accounts area (docs/architecture.md, The store port): tenants, plans, API keys,
 * dashboard sessions and the sign-in throttle's counts, as every engine answers them. Each repo
 * is written in its synchronous shape (what each method answers); callers see it as `Async<R>`
 * (src/store/port/repos.ts), which the SQLite repos become by `asyncRepo()` and the PostgreSQL
 * twins implement directly.
 */

export type Plan = { name: string; requestsPerMinute: number; maxKeys: number; maxSubscriptions: number };
export type Tenant = { id: string; name: string; plan: string; email: string | null; createdAt: number };
export type KeyRow = {
  id: string;
  tenantId: string;
  name: string | null;
  prefix: string;
  last4: string;
  scopes: string[];
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
};

/** A key as it is stored: its hash, never the key itself. */
export type NewKey = {
  id: string;
  tenantId: string;
  name: string | null;
  hash: Buffer;
  prefix: string;
  last4: string;
  scopes: string[];
  createdAt: number;
  expiresAt: number | null;
};

export type AccountsRepo = {
  plan: (name: string) => Plan | undefined;
  insertTenant: (t: Tenant) => undefined;
  tenant: (id: string) => Tenant | undefined;
  tenantByEmail: (email: string) => Tenant | undefined;
  tenants: () => Tenant[];
  passwordHash: (id: string) => string | null | undefined;
  setPassword: (id: string, hash: string) => boolean;
  setEmail: (id: string, email: string) => boolean;
  insertKey: (k: NewKey) => undefined;
  key: (id: string) => KeyRow | undefined;
  keyByHash: (hash: Buffer) => KeyRow | undefined;
  keys: (tenantId: string) => KeyRow[];
  revoke: (id: string, now: number) => undefined;
  setExpiry: (id: string, expiresAt: number) => undefined;
  touch: (id: string, now: number) => undefined;
  /** Keys of a tenant that are neither revoked nor expiring: what the plan's maxKeys caps. */
  countActiveKeys: (tenantId: string) => number;
  /** Runs `fn` in one IMMEDIATE transaction, so a count and the insert it allows are atomic. */
  inTransaction: <T>(fn: () => T) => T;
};

export type SessionRow = { tenantId: string; createdAt: number; lastSeenAt: number; expiresAt: number; absoluteExpiresAt: number };

export type SessionsRepo = {
  insert: (row: { idHash: Buffer; tenantId: string; now: number; expiresAt: number; absoluteExpiresAt: number }) => void;
  find: (idHash: Buffer) => SessionRow | undefined;
  touch: (idHash: Buffer, now: number, expiresAt: number) => void;
  remove: (idHash: Buffer) => void;
  removeTenant: (tenantId: string) => void;
  /** Deletes the sessions ended at `now` (idle or absolute limit). */
  removeExpired: (now: number) => void;
  /** Runs `fn` in one IMMEDIATE transaction (ending the expired sessions and starting one are one write). */
  inTransaction: <T>(fn: () => T) => T;
};

export type SignInCountsRepo = {
  /** The times of the newest `max` rows of `bucket` after `since`, newest first. */
  recent: (bucket: string, since: number, max: number) => number[];
  /** Rows of `bucket` after `since`, counted up to `max`. */
  count: (bucket: string, since: number, max: number) => number;
  /** Adds a row; returns its rowid (to take it back). */
  add: (bucket: string, at: number) => number | bigint;
  clear: (bucket: string) => void;
  remove: (rowid: number | bigint) => void;
  /** Deletes the rows at or before `before`, in every bucket. */
  prune: (before: number) => void;
  /** Runs `fn` in one IMMEDIATE transaction, so a count and the row it allows are atomic. */
  inTransaction: <T>(fn: () => T) => T;
};
