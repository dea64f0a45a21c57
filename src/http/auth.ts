/**
 * Caller resolution (DESIGN.md section 7). Looks at, in order: `x-api-key`, `Authorization:
 * Bearer svc_live_...` (other Bearer values are not ours and are ignored), and on /udf only
 * `?key=`. Empty values count as absent; two different keys are a conflict. Never throws: an
 * invalid key becomes an `invalid` caller, answered with 401 after the limiter has counted it.
 *
 * Key lookups are cached by hash; the cache is dropped whenever accounts change, in this process
 * or another (PRAGMA data_version), so a revocation takes effect on the very next request.
 */
import { ApiError, forbidden, unauthorized } from '../errors.js';
import { hashKey, looksLikeKey } from '../domain/api-key.js';
import { nowSeconds } from '../domain/clock.js';
import type { KeyRow, Plan, Tenant } from '../store/accounts-repo.js';
import type { AppContext, AppDeps, AppMiddleware, Caller } from './types.js';

type Found = { key: KeyRow; tenant: Tenant; plan: Plan } | null;

const LAST_USED_EVERY = 60;

/** The key presented by a request, '' for none, or an error for two different ones. */
export function presentedKey(ctx: AppContext): string | ApiError {
  const found: string[] = [];
  const header = ctx.get('x-api-key');
  if (header !== '') found.push(header);
  const authz = ctx.get('authorization');
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authz)?.[1];
  if (bearer !== undefined && bearer.startsWith('svc_live_')) found.push(bearer);
  if (ctx.path.startsWith('/udf/')) {
    const q = ctx.query.key;
    if (Array.isArray(q)) return new ApiError(400, 'invalid_parameter', 'key must be given once', { param: 'key' });
    if (q !== undefined && q !== '') found.push(q);
  }
  const distinct = [...new Set(found)];
  if (distinct.length > 1) return new ApiError(400, 'conflicting_credentials', 'two different API keys were presented');
  return distinct[0] ?? '';
}

export function resolveCaller(deps: AppDeps): AppMiddleware {
  const { store, clock } = deps;
  const repo = deps.services.accounts.repo;
  const cache = new Map<string, Found>();
  store.onChange((c) => {
    if (c.accounts || c.tokens === 'all') cache.clear();
  });

  const lookup = (secret: string): Found => {
    const id = hashKey(secret).toString('base64');
    const hit = cache.get(id);
    if (hit !== undefined) return hit;
    const key = repo.keyByHash(hashKey(secret));
    let found: Found = null;
    if (key) {
      const tenant = repo.tenant(key.tenantId);
      const plan = tenant ? repo.plan(tenant.plan) : undefined;
      if (tenant && plan) found = { key, tenant, plan };
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(id, found);
    return found;
  };

  return async (ctx, next) => {
    store.checkExternalChanges();
    const presented = presentedKey(ctx);
    let caller: Caller = { kind: 'anonymous' };
    if (presented instanceof ApiError) {
      caller = { kind: 'invalid', error: presented };
    } else if (presented !== '') {
      const now = nowSeconds(clock);
      const found = looksLikeKey(presented) ? lookup(presented) : null;
      if (found === null) caller = { kind: 'invalid', error: unauthorized('the API key is not valid') };
      else if (found.key.revokedAt !== null) caller = { kind: 'invalid', error: unauthorized('the API key was revoked') };
      else if (found.key.expiresAt !== null && now >= found.key.expiresAt) caller = { kind: 'invalid', error: unauthorized('the API key has expired') };
      else {
        if (found.key.lastUsedAt === null || now - found.key.lastUsedAt >= LAST_USED_EVERY) {
          repo.touch(found.key.id, now);
          found.key.lastUsedAt = now;
        }
        caller = { kind: 'key', ...found };
      }
    }
    ctx.state.caller = caller;
    await next();
  };
}

/** Answers an invalid caller with its error; runs after the limiter has counted the request. */
export const rejectInvalidCaller = (): AppMiddleware => async (ctx, next) => {
  if (ctx.state.caller.kind === 'invalid') throw ctx.state.caller.error;
  await next();
};

/** The keyed caller of a Keyed route: 401 without a valid key, 403 without the scope. */
export function requireKey(ctx: AppContext, scope?: 'read' | 'ingest'): Extract<Caller, { kind: 'key' }> {
  const caller = ctx.state.caller;
  if (caller.kind !== 'key') throw unauthorized();
  if (scope !== undefined && !caller.key.scopes.includes(scope)) throw forbidden(`this API key lacks the ${scope} scope`);
  return caller;
}
