/**
 * Caller resolution (docs/api.md, Authentication and keys). Looks at, in order: `x-api-key`, `Authorization:
 * Bearer svc_live_...` (other Bearer values are not ours and are ignored), and on /udf and
 * /v1/stream only `?key=`. Empty values count as absent; two different keys are a conflict.
 * Never throws for a bad key: an invalid key becomes an `invalid` caller, answered with 401 after
 * the limiter has counted it against the IP bucket. The stream's upgrade runs through this same
 * middleware (src/http/stream.ts).
 *
 * Key lookups go through the async accounts repo and are cached by hash; the cache is dropped
 * whenever accounts change, in this process (services notify) or another (PRAGMA data_version,
 * checked at the start of every request), so a revocation takes effect on the very next request; an
 * entry is read again after KEY_CACHE_MS, so a plan edited where no instance hears of it still
 * takes effect within a minute. Expiry is checked against the clock on every
 * request, cached or not, so a rotated key stops exactly at its expiresAt.
 */
import { ApiError, errors, forbidden, unauthorized } from '../errors.js';
import { KEY_PREFIX, hashKey, looksLikeKey } from '../domain/api-key.js';
import { nowSeconds } from '../domain/clock.js';
import type { KeyRow, Plan, Tenant } from '../store/port/repos.js';
import type { AppContext, AppMiddleware, Caller } from './types.js';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { StoreHandle } from '../store/port/handle.js';
import type { Services } from '../services/index.js';

/** What the caller resolver reads: the accounts repo, and the store's changes that drop its cache. */
export type CallerDeps = { store: StoreHandle; clock: Clock; logger: Logger; services: Pick<Services, 'repos'> };
import type { Scope } from '../services/accounts.js';
import { isStoreUnavailable } from './service-errors.js';

type Found = { key: KeyRow; tenant: Tenant; plan: Plan };

/** lastUsedAt is written at most this often per key (seconds), not on every request. */
export const LAST_USED_EVERY = 60;
const CACHE_MAX = 10_000;
/**
 * A cached key is read again (with its tenant and plan) after this long (ms), so a plan edited in
 * the store without a notice (an operator's UPDATE on PostgreSQL, seen by no instance) takes
 * effect on every instance within a minute (docs/api.md, Rate limits).
 */
export const KEY_CACHE_MS = 30_000;

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

/** What a request's caller is, now when it can be told from memory, else a promise of it. */
export type CallerResolver = (ctx: AppContext) => Caller | Promise<Caller>;

/**
 * The caller of a request: anonymous, a valid key (with its tenant and plan), or invalid (with
 * the error to answer). Never rejects: a store failure becomes an invalid caller answered 503 (store unreachable) or 500
 * (after the limiter, so the answer keeps its RateLimit-* headers), never an anonymous one.
 *
 * Keys are read through the async accounts repo (docs/operations.md, Many instances), behind a
 * cache of hits: a request without a key, or with a cached one, is answered synchronously, and
 * only a miss waits for the store. A lookup that was under way when the cache was dropped answers
 * its own request but is not cached, so an invalidation is never undone by a slow read.
 */
export function createCallerResolver(deps: CallerDeps): CallerResolver {
  const { store, clock, logger } = deps;
  const repo = deps.services.repos.accounts;
  // Hits only: unknown keys are not cached, so random guesses cannot evict real keys.
  const cache = new Map<string, { found: Found; until: number }>();
  let generation = 0;
  store.onChange((c) => {
    if (c.accounts || c.tokens === 'all') {
      cache.clear();
      generation++;
    }
  });

  const load = async (hash: Buffer, id: string): Promise<Found | null> => {
    const seen = generation;
    const key = await repo.keyByHash(hash);
    if (!key) return null;
    const tenant = await repo.tenant(key.tenantId);
    const plan = tenant ? await repo.plan(tenant.plan) : undefined;
    if (!tenant || !plan) return null;
    const found = { key, tenant, plan };
    if (seen === generation) {
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(id, { found, until: clock.now() + KEY_CACHE_MS });
    }
    return found;
  };

  const touch = (key: KeyRow, now: number) => {
    if (key.lastUsedAt !== null && now - key.lastUsedAt < LAST_USED_EVERY) return;
    key.lastUsedAt = now;
    // Bookkeeping only: a busy store must not fail the request.
    const warn = (err: unknown) => logger.warn({ err, keyId: key.id }, 'could not record lastUsedAt');
    try {
      repo.touch(key.id, now).catch(warn);
    } catch (err) {
      warn(err);
    }
  };

  const judge = (found: Found | null): Caller => {
    const now = nowSeconds(clock);
    if (found === null) return { kind: 'invalid', error: unauthorized('the API key is not valid') };
    if (found.key.revokedAt !== null) return { kind: 'invalid', error: unauthorized('the API key was revoked') };
    if (found.key.expiresAt !== null && now >= found.key.expiresAt) return { kind: 'invalid', error: unauthorized('the API key has expired') };
    touch(found.key, now);
    return { kind: 'key', ...found };
  };

  // A key that cannot be checked is never answered 401: 503 while the store cannot be reached
  // (it is a passing state: retry), 500 for anything else.
  const failed = (ctx: AppContext, err: unknown): Caller => {
    if (isStoreUnavailable(err)) return { kind: 'invalid', error: errors.unavailable() };
    ctx.app.emit('error', err, ctx);
    return { kind: 'invalid', error: errors.internal() };
  };

  return (ctx) => {
    // Most callers (charts polling /udf) present no key at all: nothing to split, match or parse.
    if (!mayPresentKey(ctx)) return ANONYMOUS;
    const presented = presentedKey(ctx);
    if (presented instanceof ApiError) return { kind: 'invalid', error: presented };
    if (presented === '') return ANONYMOUS;
    // Garbage (including anything over 256 characters) is refused before any hashing.
    if (!looksLikeKey(presented)) return judge(null);
    const hash = hashKey(presented);
    const id = hash.toString('base64');
    const hit = cache.get(id);
    if (hit !== undefined && clock.now() < hit.until) return judge(hit.found);
    try {
      return load(hash, id).then(judge, (err: unknown) => failed(ctx, err));
    } catch (err) {
      return failed(ctx, err);
    }
  };
}

/** The caller step on its own, as a middleware (the app runs it inside src/http/gate.ts). */
export function resolveCaller(deps: CallerDeps): AppMiddleware {
  const resolve = createCallerResolver(deps);
  return async (ctx, next) => {
    const caller = resolve(ctx);
    ctx.state.caller = caller instanceof Promise ? await caller : caller;
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
