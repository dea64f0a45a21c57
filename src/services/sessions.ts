/**
 * Dashboard sessions and the sign-in throttle (docs/api.md, Pages).
 *
 * A session id is 32 random bytes (base64url) that only the browser's cookie holds; the store
 * keeps its SHA-256, so a copy of the database signs nobody in. A session ends after an idle
 * period (moved forward on use, at most once a minute) or at an absolute limit, whichever comes
 * first. The CSRF token is derived from the session id (a hash under a separate label): it is
 * bound to the session, needs no storage, and does not reveal the id.
 *
 * The sign-in throttle keeps its counts in the store, so a restart does not reset them.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Repos } from '../store/port/repos.js';
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

/** Sessions on `repos.sessions` (either engine). */
export function createSessions(deps: { clock: Clock; repos: Pick<Repos, 'sessions'> }, opts: { idleSeconds?: number; absoluteSeconds?: number } = {}) {
  const idle = opts.idleSeconds ?? SESSION_DEFAULTS.idleSeconds;
  const absolute = opts.absoluteSeconds ?? SESSION_DEFAULTS.absoluteSeconds;
  const now = () => nowSeconds(deps.clock);
  const s = deps.repos.sessions;
  const idHash = (token: string) => sha256('session', token);

  return {
    /** Starts a session for a tenant; the returned token goes into the cookie and nowhere else. */
    async create(tenantId: string): Promise<NewSession> {
      const t = now();
      const token = randomBytes(32).toString('base64url');
      const absoluteExpiresAt = t + absolute;
      const expiresAt = Math.min(t + idle, absoluteExpiresAt);
      // Ending the expired sessions rides on the new one's write: one transaction, not two.
      await s.inTransaction(async (tx) => {
        await tx.removeExpired(t);
        await tx.insert({ idHash: idHash(token), tenantId, now: t, expiresAt, absoluteExpiresAt });
      });
      return { token, tenantId, csrfToken: csrfTokenFor(token), expiresAt, createdAt: t };
    },

    /** The live session of a cookie value, or null (unknown, malformed or expired). */
    async find(token: string): Promise<Session | null> {
      if (!TOKEN_PATTERN.test(token)) return null;
      const hash = idHash(token);
      const row = await s.find(hash);
      if (!row) return null;
      const t = now();
      if (t >= row.expiresAt || t >= row.absoluteExpiresAt) {
        await s.remove(hash);
        return null;
      }
      let expiresAt = row.expiresAt;
      if (t - row.lastSeenAt >= TOUCH_EVERY) {
        expiresAt = Math.min(t + idle, row.absoluteExpiresAt);
        await s.touch(hash, t, expiresAt);
      }
      return { tenantId: row.tenantId, csrfToken: csrfTokenFor(token), expiresAt, createdAt: row.createdAt };
    },

    /** Ends a session (signing out); unknown tokens are ignored. */
    async destroy(token: string): Promise<void> {
      if (TOKEN_PATTERN.test(token)) await s.remove(idHash(token));
    },

    /** Ends every session of a tenant. */
    async destroyAll(tenantId: string): Promise<void> {
      await s.removeTenant(tenantId);
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
 * Each count and the row it allows are one transaction of `repos.signInCounts`, so attempts in
 * flight together (on any instance sharing the store) cannot all pass.
 */
export function createSignInThrottle(
  deps: { clock: Clock; repos: Pick<Repos, 'signInCounts'> },
  opts: Partial<{ [K in keyof typeof THROTTLE_DEFAULTS]: number }> = {},
) {
  const o = { ...THROTTLE_DEFAULTS, ...opts };
  const window = o.windowSeconds;
  const now = () => nowSeconds(deps.clock);
  const counts = deps.repos.signInCounts;
  type Tx = typeof counts;

  /** Seconds until `bucket` has fewer than `max` rows within the window (0: now). */
  const waitFor = async (tx: Tx, bucket: string, max: number, t: number): Promise<number> => {
    const times = await tx.recent(bucket, t - window, max);
    return times.length >= max ? times[max - 1]! + window - t : 0;
  };

  const delayAfter = (failures: number): number =>
    failures < o.accountFreeFailures ? 0 : Math.min(o.delayBaseMs * 2 ** Math.min(failures - o.accountFreeFailures, 30), o.maxDelayMs);

  return {
    /**
     * Counts one sign-in attempt from `ip` (a limiter bucket name), before its body is read.
     * Answers the seconds to wait when the IP has used its attempts (nothing is counted then).
     */
    admit(ip: string): Promise<{ wait: number }> {
      return counts.inTransaction(async (tx) => {
        const t = now();
        const bucket = `attempt:${ip}`;
        const wait = await waitFor(tx, bucket, o.ipAttempts, t);
        if (wait > 0) return { wait };
        await tx.prune(t - window);
        await tx.add(bucket, t);
        return { wait: 0 };
      });
    },

    /**
     * Starts the password check of `account` from `ip`. When the pair has had `pairFailures`
     * failures within the window, answers the seconds to wait. Otherwise counts the attempt as a
     * failure of the pair and of the account at once, before the password is checked, so
     * attempts in flight together cannot all pass; `delayMs` is how long to hold the attempt
     * (the account's earlier failures decide it). `succeeded()` takes the attempt back and
     * forgets the account's failures.
     */
    begin(ip: string, account: string): Promise<{ wait: number; delayMs: number; succeeded(): Promise<void> }> {
      return counts.inTransaction(async (tx) => {
        const t = now();
        const pair = `pair:${ip}|${account}`;
        const acct = `account:${account}`;
        const wait = await waitFor(tx, pair, o.pairFailures, t);
        if (wait > 0) return { wait, delayMs: 0, succeeded: async () => {} };
        const earlier = await tx.count(acct, t - window, o.accountFreeFailures + 40);
        const ids = [await tx.add(pair, t), await tx.add(acct, t)];
        return {
          wait: 0,
          delayMs: delayAfter(earlier),
          succeeded: () =>
            counts.inTransaction(async (done) => {
              for (const id of ids) await done.remove(id);
              await done.clear(pair);
              await done.clear(acct);
            }),
        };
      });
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
