/**
 * The SQL of dashboard sessions and of the sign-in throttle's counts (src/services/sessions.ts
 * holds their rules). Sessions are keyed by the SHA-256 of their id; throttle rows are one per
 * counted attempt, in named buckets.
 */
import { writeTransaction, type Db } from './db.js';
import type { SessionRow, SessionsRepo, SignInCountsRepo } from '../port/accounts.js';

// The interface and row types are the port's (src/store/port/accounts.ts), named here too.
export type { SessionRow, SessionsRepo, SignInCountsRepo } from '../port/accounts.js';

export function createSessionsRepo(db: Db): SessionsRepo {
  const insert = db.prepare<{ idHash: Buffer; tenantId: string; now: number; expiresAt: number; absoluteExpiresAt: number }>(
    `INSERT INTO dashboard_sessions (id_hash, tenant_id, created_at, last_seen_at, expires_at, absolute_expires_at)
     VALUES (@idHash, @tenantId, @now, @now, @expiresAt, @absoluteExpiresAt)`,
  );
  const find = db.prepare<[Buffer], SessionRow>(
    `SELECT tenant_id AS tenantId, created_at AS createdAt, last_seen_at AS lastSeenAt,
            expires_at AS expiresAt, absolute_expires_at AS absoluteExpiresAt
     FROM dashboard_sessions WHERE id_hash = ?`,
  );
  const touch = db.prepare<{ now: number; expiresAt: number; idHash: Buffer }>(
    'UPDATE dashboard_sessions SET last_seen_at = @now, expires_at = @expiresAt WHERE id_hash = @idHash',
  );
  const remove = db.prepare<[Buffer]>('DELETE FROM dashboard_sessions WHERE id_hash = ?');
  const removeTenant = db.prepare<[string]>('DELETE FROM dashboard_sessions WHERE tenant_id = ?');
  const removeExpired = db.prepare<{ now: number }>('DELETE FROM dashboard_sessions WHERE expires_at <= @now OR absolute_expires_at <= @now');

  return {
    insert: (row: { idHash: Buffer; tenantId: string; now: number; expiresAt: number; absoluteExpiresAt: number }): void => void insert.run(row),
    find: (idHash: Buffer): SessionRow | undefined => find.get(idHash),
    touch: (idHash: Buffer, now: number, expiresAt: number): void => void touch.run({ now, expiresAt, idHash }),
    remove: (idHash: Buffer): void => void remove.run(idHash),
    removeTenant: (tenantId: string): void => void removeTenant.run(tenantId),
    /** Deletes the sessions ended at `now` (idle or absolute limit). */
    removeExpired: (now: number): void => void removeExpired.run({ now }),
    /** Runs `fn` in one IMMEDIATE transaction (ending the expired sessions and starting one are one write). */
    inTransaction: <T>(fn: () => T): T => writeTransaction(db, fn)(),
  };
}

export function createSignInCountsRepo(db: Db): SignInCountsRepo {
  // The rows still inside the window, newest first: the max-th newest decides when the bucket
  // opens again.
  const recent = db.prepare<[string, number, number], number>('SELECT at FROM sign_in_failures WHERE bucket = ? AND at > ? ORDER BY at DESC LIMIT ?').pluck();
  const count = db
    .prepare<[string, number, number], number>('SELECT count(*) FROM (SELECT 1 FROM sign_in_failures WHERE bucket = ? AND at > ? LIMIT ?)')
    .pluck();
  const add = db.prepare<[string, number]>('INSERT INTO sign_in_failures (bucket, at) VALUES (?, ?)');
  const clear = db.prepare<[string]>('DELETE FROM sign_in_failures WHERE bucket = ?');
  const remove = db.prepare<[number | bigint]>('DELETE FROM sign_in_failures WHERE rowid = ?');
  const prune = db.prepare<[number]>('DELETE FROM sign_in_failures WHERE at <= ?');

  return {
    /** The times of the newest `max` rows of `bucket` after `since`, newest first. */
    recent: (bucket: string, since: number, max: number): number[] => recent.all(bucket, since, max),
    /** Rows of `bucket` after `since`, counted up to `max`. */
    count: (bucket: string, since: number, max: number): number => count.get(bucket, since, max)!,
    /** Adds a row; returns its rowid (to take it back). */
    add: (bucket: string, at: number): number | bigint => add.run(bucket, at).lastInsertRowid,
    clear: (bucket: string): void => void clear.run(bucket),
    remove: (rowid: number | bigint): void => void remove.run(rowid),
    /** Deletes the rows at or before `before`, in every bucket. */
    prune: (before: number): void => void prune.run(before),
    /** Runs `fn` in one IMMEDIATE transaction, so a count and the row it allows are atomic. */
    inTransaction: <T>(fn: () => T): T => writeTransaction(db, fn)(),
  };
}
