/**
 * Dashboard sessions and the sign-in throttle's counts on PostgreSQL: the twins of
 * src/store/sqlite/sessions-repo.ts (same answers for the same calls, each a promise).
 *
 * `sign_in_failures` has no key (SQLite names a row by its rowid; docs/operations.md, Many
 * instances). Here a row is named by its ctid, packed into one number (block * 2^16 + line
 * pointer), which `remove()` turns back into a tid. Rows of this table are never updated, so a
 * ctid names its row until the row is deleted; the throttle takes its rows back within the
 * request that added them.
 */
import type { Async } from '../port/async.js';
import type { SessionRow, SessionsRepo, SignInCountsRepo } from '../port/repos.js';
import { limitParam, pgTransaction, row, rows, type Queryable } from './pg-repo.js';

/** The advisory lock that makes session and sign-in count transactions one at a time across instances. */
export const SESSIONS_LOCK_KEY = '7301746852145370005';
export const SIGN_IN_LOCK_KEY = '7301746852145370006';

/** Line pointers per block in a packed ctid (a block holds far fewer rows than this). */
const LINES = 2 ** 16;

/** A ctid as SQL that packs it into one bigint. */
const PACKED_CTID = `((ctid::text::point)[0]::bigint * ${LINES} + (ctid::text::point)[1]::bigint)`;

export type PgSessionsRepo = Async<SessionsRepo>;
export type PgSignInCountsRepo = Async<SignInCountsRepo>;

export function createPgSessionsRepo(db: Queryable): PgSessionsRepo {
  const run = async (sql: string, params: unknown[]): Promise<void> => void (await db.query(sql, params));
  return {
    insert: (r) =>
      run(
        `INSERT INTO dashboard_sessions (id_hash, tenant_id, created_at, last_seen_at, expires_at, absolute_expires_at)
         VALUES ($1, $2, $3, $3, $4, $5)`,
        [r.idHash, r.tenantId, r.now, r.expiresAt, r.absoluteExpiresAt],
      ),
    find: (idHash) =>
      row<SessionRow>(
        db,
        `SELECT tenant_id AS "tenantId", created_at AS "createdAt", last_seen_at AS "lastSeenAt",
                expires_at AS "expiresAt", absolute_expires_at AS "absoluteExpiresAt"
         FROM dashboard_sessions WHERE id_hash = $1`,
        [idHash],
      ),
    touch: (idHash, now, expiresAt) => run('UPDATE dashboard_sessions SET last_seen_at = $1, expires_at = $2 WHERE id_hash = $3', [now, expiresAt, idHash]),
    remove: (idHash) => run('DELETE FROM dashboard_sessions WHERE id_hash = $1', [idHash]),
    removeTenant: (tenantId) => run('DELETE FROM dashboard_sessions WHERE tenant_id = $1', [tenantId]),
    removeExpired: (now) => run('DELETE FROM dashboard_sessions WHERE expires_at <= $1 OR absolute_expires_at <= $1', [now]),
    // One at a time on every instance, as BEGIN IMMEDIATE makes them on SQLite.
    inTransaction: (fn) => pgTransaction(db, SESSIONS_LOCK_KEY, (client) => fn(createPgSessionsRepo(client))),
  };
}

export function createPgSignInCountsRepo(db: Queryable): PgSignInCountsRepo {
  const run = async (sql: string, params: unknown[]): Promise<void> => void (await db.query(sql, params));
  return {
    recent: async (bucket, since, max) =>
      (
        await rows<{ at: number }>(db, 'SELECT at FROM sign_in_failures WHERE bucket = $1 AND at > $2 ORDER BY at DESC LIMIT $3', [
          bucket,
          since,
          limitParam(max),
        ])
      ).map((r) => r.at),
    count: async (bucket, since, max) =>
      (await row<{ n: number }>(db, 'SELECT count(*) AS n FROM (SELECT 1 FROM sign_in_failures WHERE bucket = $1 AND at > $2 LIMIT $3) x', [
        bucket,
        since,
        limitParam(max),
      ]))!.n,
    add: async (bucket, at) =>
      (await row<{ handle: number }>(db, `INSERT INTO sign_in_failures (bucket, at) VALUES ($1, $2) RETURNING ${PACKED_CTID} AS handle`, [bucket, at]))!.handle,
    clear: (bucket) => run('DELETE FROM sign_in_failures WHERE bucket = $1', [bucket]),
    remove(handle) {
      const n = Number(handle);
      return run('DELETE FROM sign_in_failures WHERE ctid = $1::tid', [`(${Math.floor(n / LINES)},${n % LINES})`]);
    },
    prune: (before) => run('DELETE FROM sign_in_failures WHERE at <= $1', [before]),
    inTransaction: (fn) => pgTransaction(db, SIGN_IN_LOCK_KEY, (client) => fn(createPgSignInCountsRepo(client))),
  };
}
