/**
 * Caller resolution (docs/api.md, Authentication and keys). Looks at, in order: `x-api-key`, `Authorization:
 * Bearer svc_live_...` (other Bearer values are not ours and are ignored), and on /udf and
 * /v1/stream only `?key=`. Empty values count as absent; two different keys are a conflict.
 * Never throws for a bad key: an invalid key becomes an `invalid` caller, answered with 401 after
 * the limiter has counted it against the IP bucket. The stream's upgrade runs through this same
 * middleware (src/http/stream.ts).
 *
 * Key lookups are cached by hash; the cache is dropped whenever accounts change, in this process
 * (services notify) or another (PRAGMA data_version, checked at the start of every request), so a
 * revocation takes effect on the very next request. Expiry is checked against the clock on every
 * request, cached or not, so a rotated key stops exactly at its expiresAt.
 */
import { ApiError, errors, forbidden, unauthorized } from '../errors.js';
import { KEY_PREFIX, hashKey, looksLikeKey } from '../domain/api-key.js';
import { nowSeconds } from '../domain/clock.js';
import type { KeyRow, Plan, Tenant } from '../store/accounts-repo.js';
import type { AppContext, AppDeps, AppMiddleware, Caller } from './types.js';
import type { Scope } from '../services/accounts.js';

type Found = { key: KeyRow; tenant: Tenant; plan: Plan };

/** lastUsedAt is written at most this often per key (seconds), not on every request. */
export const LAST_USED_EVERY = 60;
const CACHE_MAX = 10_000;

/** Routes that also accept `?key=`: the UDF datafeed and the stream (browsers cannot set WebSocket headers). */
const acceptsQueryKey = (path: string) => path === '/udf' || path.startsWith('/udf/') || path === '/v1/stream';

/**
 * The value of `Authorization` when it is one of our keys: the scheme is case-insensitive
 * (RFC 9110), the value is everything after it. A Bearer value without our prefix (an OAuth
 * token meant for a proxy, say) is not ours: '' as if absent.
 */
function bearerKey(authorization: string): string {
  const m = /^Bearer(?:[ \t]+(.*))?$/is.exec(authorization);
  const value = m?.[1]?.trim() ?? '';
  return value.startsWith(KEY_PREFIX) ? value : '';
}

/** The caller of every request without a key; shared, never changed. */
export const ANONYMOUS: Caller = Object.freeze({ kind: 'anonymous' });

/**
 * False when a request certainly presents no key: no key header, no Authorization, and no
 * `key=` in the query string of a route that reads one (a false true only costs the full check).
 */
function mayPresentKey(ctx: AppContext): boolean {
  const h = ctx.req.headers;
  if (h['x-api-key'] !== undefined || h.authorization !== undefined) return true;
  const qs = ctx.querystring;
  // A percent-encoded name (`%6Bey=`) decodes to `key` too.
  return (qs.includes('key=') || qs.includes('%')) && acceptsQueryKey(ctx.path);
}

/** The key presented by a request, '' for none, or an error for two different ones. */
export function presentedKey(ctx: AppContext): string | ApiError {
  const found: string[] = [];
  // Node joins a repeated x-api-key header with ", "; keys never contain a comma.
  for (const part of ctx.get('x-api-key').split(',')) if (part.trim() !== '') found.push(part.trim());
  const bearer = bearerKey(ctx.get('authorization'));
  if (bearer !== '') found.push(bearer);
  if (acceptsQueryKey(ctx.path)) {
    const q = ctx.query.key;
    if (Array.isArray(q)) return errors.invalidParameter('key', 'key must be given once');
    if (q !== undefined && q !== '') found.push(q);
  }
  const distinct = [...new Set(found)];
  if (distinct.length > 1) {
    return errors.conflictingCredentials();
  }
  return distinct[0] ?? '';
}

/**
 * Sets ctx.state.caller: anonymous, a valid key (with its tenant and plan), or invalid (with the
 * error to answer). Only a store failure can make it throw.
 */
export function resolveCaller(deps: AppDeps): AppMiddleware {
  const { store, clock, logger } = deps;
  const repo = deps.services.accounts.repo;
  // Hits only: unknown keys are not cached, so random guesses cannot evict real keys.
  const cache = new Map<string, Found>();
  store.onChange((c) => {
    if (c.accounts || c.tokens === 'all') cache.clear();
  });

  const lookup = (secret: string): Found | null => {
    const hash = hashKey(secret);
    const id = hash.toString('base64');
    const hit = cache.get(id);
    if (hit !== undefined) return hit;
    const key = repo.keyByHash(hash);
    if (!key) return null;
    const tenant = repo.tenant(key.tenantId);
    const plan = tenant ? repo.plan(tenant.plan) : undefined;
    if (!tenant || !plan) return null;
    if (cache.size >= CACHE_MAX) cache.clear();
    const found = { key, tenant, plan };
    cache.set(id, found);
    return found;
  };

  const touch = (key: KeyRow, now: number) => {
    if (key.lastUsedAt !== null && now - key.lastUsedAt < LAST_USED_EVERY) return;
    key.lastUsedAt = now;
    try {
      repo.touch(key.id, now);
    } catch (err) {
      // Bookkeeping only: a busy store must not fail the request.
      logger.warn({ err, keyId: key.id }, 'could not record lastUsedAt');
    }
  };

  const resolve = (ctx: AppContext): Caller => {
    // Most callers (charts polling /udf) present no key at all: nothing to split, match or parse.
    if (!mayPresentKey(ctx)) return ANONYMOUS;
    const presented = presentedKey(ctx);
    let caller: Caller = ANONYMOUS;
    if (presented instanceof ApiError) {
      caller = { kind: 'invalid', error: presented };
    } else if (presented !== '') {
      const now = nowSeconds(clock);
      // Garbage (including anything over 256 characters) is refused before any hashing.
      const found = looksLikeKey(presented) ? lookup(presented) : null;
      if (found === null) caller = { kind: 'invalid', error: unauthorized('the API key is not valid') };
      else if (found.key.revokedAt !== null) caller = { kind: 'invalid', error: unauthorized('the API key was revoked') };
      else if (found.key.expiresAt !== null && now >= found.key.expiresAt) caller = { kind: 'invalid', error: unauthorized('the API key has expired') };
      else {
        touch(found.key, now);
        caller = { kind: 'key', ...found };
      }
    }
    return caller;
  };

  return async (ctx, next) => {
    try {
      ctx.state.caller = resolve(ctx);
    } catch (err) {
      // The store failed: answer 500 after the limiter (so the answer keeps its RateLimit-*
      // headers), and never treat a presented key we could not check as anonymous.
      ctx.app.emit('error', err, ctx);
      ctx.state.caller = { kind: 'invalid', error: errors.internal() };
    }
    await next();
  };
}

/** Answers an invalid caller with its error; runs after the limiter has counted the request. */
export const rejectInvalidCaller = (): AppMiddleware => async (ctx, next) => {
  if (ctx.state.caller.kind === 'invalid') throw ctx.state.caller.error;
  await next();
};

/** The keyed caller of a Keyed route: 401 without a valid key, 403 without the scope. */
export function requireKey(ctx: AppContext, scope?: Scope): Extract<Caller, { kind: 'key' }> {
  const caller = ctx.state.caller;
  if (caller.kind !== 'key') throw unauthorized();
  if (scope !== undefined && !caller.key.scopes.includes(scope)) throw forbidden(`this API key lacks the ${scope} scope`);
  return caller;
}
