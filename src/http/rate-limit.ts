/**
 * The rate-limit decision for each request (DESIGN.md section 8). A valid key counts against its
 * tenant's bucket (plan.requestsPerMinute per 60 s, shared by all the tenant's keys); everyone
 * else, invalid keys included, against the client IP's bucket (RATE_LIMIT_ANON). The answer goes
 * to ctx.state.rateLimit, which the error handler writes as RateLimit-* headers on every response
 * and enforceRateLimit turns into the 429. This middleware never throws.
 *
 * /healthz, CORS preflights and the pages' static assets (/assets/...) are not counted; they
 * still carry the headers of the caller's bucket (a peek).
 */
import type { Limiter } from '../limiter/limiter.js';
import type { Plan } from '../store/accounts-repo.js';
import type { Decision, Rate } from '../limiter/gcra.js';
import { clientIp } from './client-ip.js';
import type { AppContext, AppDeps, AppMiddleware, RateLimitState } from './types.js';

const TENANT_WINDOW_SECONDS = 60;

/** Requests that are served without being counted. */
export function isUncounted(ctx: AppContext): boolean {
  if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') return true;
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  return ctx.path === '/healthz' || ctx.path.startsWith('/assets/');
}

/** A tenant's rate: its plan's requests per minute. */
export const tenantRate = (plan: Plan): Rate => ({ limit: plan.requestsPerMinute, windowSeconds: TENANT_WINDOW_SECONDS });

/** The limiter's decision for this request's caller. */
export function decide(limiter: Limiter, anon: Rate, ctx: AppContext, consume: boolean): Decision {
  const caller = ctx.state.caller;
  if (caller?.kind === 'key') return limiter.tenant(caller.tenant.id, tenantRate(caller.plan), consume);
  return limiter.ip(clientIp(ctx).key, anon, consume);
}

export function toRateLimitState(d: Decision): RateLimitState {
  const state: RateLimitState = {
    limit: d.limit,
    remaining: d.remaining,
    resetSeconds: d.resetSeconds,
    policy: `${d.limit};w=${d.windowSeconds}`,
  };
  if (!d.allowed && d.retryAfterSeconds !== undefined) state.retryAfterSeconds = d.retryAfterSeconds;
  return state;
}

/** The limiter middleware, on the app's limiter (deps.limiter) unless a test hands it another. */
export function rateLimit(deps: AppDeps, limiter: Limiter = deps.limiter): AppMiddleware {
  const anon = deps.config.rateLimitAnon;
  return async (ctx, next) => {
    try {
      ctx.state.rateLimit = toRateLimitState(decide(limiter, anon, ctx, !isUncounted(ctx)));
    } catch (err) {
      // A limiter fault must not take the API down: serve the request unlimited, and say so.
      deps.logger.error({ err, requestId: ctx.state.requestId }, 'rate limiter failed; request not limited');
    }
    await next();
  };
}
