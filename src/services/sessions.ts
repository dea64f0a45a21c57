/**
 * Dashboard sessions and the sign-in throttle (docs/api.md, Pages).
 *
 * A session id is 32 random bytes (base64url) that only the browser's cookie holds; the store
 * keeps its SHA-256, so a copy of the database signs nobody in. A session ends after an idle
 * period (moved forward on use, at most once a minute) or at an absolute limit, whichever comes
 * first. The CSRF token is derived from the session id (a hash under a separate label): it is
 * bound to the session, needs no storage, and does not reveal the id.
 *
 * The sign-in throttle keeps its counts in SQLite, so a restart does not reset them.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { writeTransaction, type Store } from '../store/db.js';
import { createSessionsRepo, createSignInCountsRepo } from '../store/sessions-repo.js';
import { nowSeconds, type Clock } from '../domain/clock.js';

export const SESSION_DEFAULTS = { idleSeconds: 2 * 3600, absoluteSeconds: 12 * 3600 } as const;
export const THROTTLE_DEFAULTS = {
  /** Sign-in attempts one client IP may make per window, whatever their outcome. */
  ipAttempts: 30,
  /** Failures per (IP, account) per window. */
  pairFailures: 10,
  /** Failures on an account (from anywhere) before its attempts are delayed. */
  accountFreeFailures: 10,
  delayBaseMs: 250,
  maxDelayMs: 4000,
  windowSeconds: 15 * 60,
} as const;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const TOUCH_EVERY = 60;

export type Session = { tenantId: string; csrfToken: string; expiresAt: number; createdAt: number };
export type NewSession = Session & { token: string };

const sha256 = (label: string, value: string): Buffer => createHash('sha256').update(label).update('\0').update(value).digest();

/** The CSRF token of a session id. */
export const csrfTokenFor = (token: string): string => sha256('csrf', token).toString('base64url');

/** Compares two strings in time independent of where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function createSessions(deps: { store: Store; clock: Clock }, opts: { idleSeconds?: number; absoluteSeconds?: number } = {}) {
  const { db } = deps.store;
  const idle = opts.idleSeconds ?? SESSION_DEFAULTS.idleSeconds;
  const absolute = opts.absoluteSeconds ?? SESSION_DEFAULTS.absoluteSeconds;
  const now = () => nowSeconds(deps.clock);
  const s = createSessionsRepo(db);
  const idHash = (token: string) => sha256('session', token);

  return {
    /** Starts a session for a tenant; the returned token goes into the cookie and nowhere else. */
    create(tenantId: string): NewSession {
      const t = now();
      s.removeExpired(t);
      const token = randomBytes(32).toString('base64url');
      const absoluteExpiresAt = t + absolute;
      const expiresAt = Math.min(t + idle, absoluteExpiresAt);
      s.insert({ idHash: idHash(token), tenantId, now: t, expiresAt, absoluteExpiresAt });
      return { token, tenantId, csrfToken: csrfTokenFor(token), expiresAt, createdAt: t };
    },

    /** The live session of a cookie value, or null (unknown, malformed or expired). */
    find(token: string): Session | null {
      if (!TOKEN_PATTERN.test(token)) return null;
      const hash = idHash(token);
      const row = s.find(hash);
      if (!row) return null;
      const t = now();
      if (t >= row.expiresAt || t >= row.absoluteExpiresAt) {
        s.remove(hash);
        return null;
      }
      let expiresAt = row.expiresAt;
      if (t - row.lastSeenAt >= TOUCH_EVERY) {
        expiresAt = Math.min(t + idle, row.absoluteExpiresAt);
        s.touch(hash, t, expiresAt);
      }
      return { tenantId: row.tenantId, csrfToken: csrfTokenFor(token), expiresAt, createdAt: row.createdAt };
    },

    /** Ends a session (signing out); unknown tokens are ignored. */
    destroy(token: string): void {
      if (TOKEN_PATTERN.test(token)) s.remove(idHash(token));
    },

    /** Ends every session of a tenant. */
    destroyAll(tenantId: string): void {
      s.removeTenant(tenantId);
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;

/**
 * The sign-in throttle (docs/api.md, Pages). Three counts, each over a sliding window:
 * - every attempt from a client IP, counted before its body is read (30 per 15 min, then 429);
 * - failures per (IP, account) (10 per 15 min, then 429 for that pair only), so a guesser is
 *   stopped without touching the account's owner, who signs in from other addresses;
 * - failures on an account from anywhere: past 10, each attempt on it waits a delay that doubles
 *   with every further failure (250 ms up to 4 s). An account attacked from many addresses is
 *   slowed, never locked: its owner still gets in.
 */
export function createSignInThrottle(deps: { store: Store; clock: Clock }, opts: Partial<{ [K in keyof typeof THROTTLE_DEFAULTS]: number }> = {}) {
  const { db } = deps.store;
  const o = { ...THROTTLE_DEFAULTS, ...opts };
  const window = o.windowSeconds;
  const now = () => nowSeconds(deps.clock);
  const s = createSignInCountsRepo(db);

  /** Seconds until `bucket` has fewer than `max` rows within the window (0: now). */
  const waitFor = (bucket: string, max: number, t: number): number => {
    const times = s.recent(bucket, t - window, max);
    return times.length >= max ? times[max - 1]! + window - t : 0;
  };

  const delayAfter = (failures: number): number =>
    failures < o.accountFreeFailures ? 0 : Math.min(o.delayBaseMs * 2 ** Math.min(failures - o.accountFreeFailures, 30), o.maxDelayMs);

  return {
    /**
     * Counts one sign-in attempt from `ip` (a limiter bucket name), before its body is read.
     * Answers the seconds to wait when the IP has used its attempts (nothing is counted then).
     */
    admit(ip: string): { wait: number } {
      return writeTransaction(db, () => {
        const t = now();
        const bucket = `attempt:${ip}`;
        const wait = waitFor(bucket, o.ipAttempts, t);
        if (wait > 0) return { wait };
        s.prune(t - window);
        s.add(bucket, t);
        return { wait: 0 };
      })();
    },

    /**
     * Starts the password check of `account` from `ip`. When the pair has had `pairFailures`
     * failures within the window, answers the seconds to wait. Otherwise counts the attempt as a
     * failure of the pair and of the account at once, before the password is checked, so
     * attempts in flight together cannot all pass; `delayMs` is how long to hold the attempt
     * (the account's earlier failures decide it). `succeeded()` takes the attempt back and
     * forgets the account's failures.
     */
    begin(ip: string, account: string): { wait: number; delayMs: number; succeeded(): void } {
      return writeTransaction(db, () => {
        const t = now();
        const pair = `pair:${ip}|${account}`;
        const acct = `account:${account}`;
        const wait = waitFor(pair, o.pairFailures, t);
        if (wait > 0) return { wait, delayMs: 0, succeeded: () => {} };
        const earlier = s.count(acct, t - window, o.accountFreeFailures + 40);
        const ids = [pair, acct].map((bucket) => s.add(bucket, t));
        return {
          wait: 0,
          delayMs: delayAfter(earlier),
          succeeded: () => {
            writeTransaction(db, () => {
              for (const id of ids) s.remove(id);
              s.clear(pair);
              s.clear(acct);
            })();
          },
        };
      })();
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
