/**
 * The rate-limit decision for each request (docs/api.md, Rate limits). A valid key counts against its
 * tenant's bucket (plan.requestsPerMinute per 60 s, shared by all the tenant's keys); everyone
 * else, invalid keys included, against the client IP's bucket (RATE_LIMIT_ANON). The answer goes
 * to ctx.state.rateLimit, which the error handler writes as RateLimit-* headers on every response
 * and the 429 step (src/http/gate.ts, or enforceRateLimit) turns into the 429. It never throws.
 *
 * The limiter may be the in-memory one (answers at once) or one that answers promises (the Redis
 * limiter of docs/operations.md, Many instances): the step waits only when the answer is a promise.
 *
 * /healthz and CORS preflights are not counted; they still carry the headers of the caller's
 * bucket (a peek). The pages' static assets (/assets/...) are free for a caller's first 50 a
 * minute (a page load fetches a dozen), and counted like any request after that, so nobody can
 * fetch the docs bundle without limit (docs/api.md, Rate limits).
 */
import type { Limiter } from '../limiter/limiter.js';
import type { Plan } from '../store/port/repos.js';
import type { Decision, Rate } from '../limiter/gcra.js';
import { clientIp } from './client-ip.js';
import { createLimiter } from '../limiter/limiter.js';
import type { AsyncLimiter } from '../limiter/redis-gcra.js';
import type { AppContext, AppMiddleware, RateLimitState } from './types.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import type { Coord } from '../coord/wiring.js';

/** What the limiter step takes: the app's limiter, the anonymous rate, the shared buckets' wiring. */
export type LimitDeps = { config: Config; clock: Clock; logger: Logger; limiter: Limiter | AsyncLimiter; coord: Pick<Coord, 'limiter'> };

const TENANT_WINDOW_SECONDS = 60;

/** Requests that are served without being counted. */
export function isUncounted(ctx: AppContext): boolean {
  const method = ctx.req.method;
  if (method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') return true;
  if (method !== 'GET' && method !== 'HEAD') return false;
  return ctx.request.path === '/healthz';
}

/** A static asset request: free within the caller's asset allowance. */
const isAsset = (ctx: AppContext): boolean => (ctx.req.method === 'GET' || ctx.req.method === 'HEAD') && ctx.request.path.startsWith('/assets/');

/** Asset requests a caller makes per minute before they are counted (docs/api.md, Rate limits). */
export const FREE_ASSETS: Rate = { limit: 50, windowSeconds: 60 };

/** A tenant's rate: its plan's requests per minute. */
export const tenantRate = (plan: Plan): Rate => ({ limit: plan.requestsPerMinute, windowSeconds: TENANT_WINDOW_SECONDS });

/** Spends one of the caller's free asset requests: the allowance's decision (allowed: one was left). */
function freeAsset(assets: Limiter | AsyncLimiter, ctx: AppContext): Decision | Promise<Decision> {
  const caller = ctx.state.caller;
  return caller?.kind === 'key' ? assets.tenant(caller.tenant.id, FREE_ASSETS, true) : assets.ip(clientIp(ctx).key, FREE_ASSETS, true);
}

/** The limiter's decision for this request's caller (a promise when the limiter answers one). */
export function decide(limiter: Limiter | AsyncLimiter, anon: Rate, ctx: AppContext, consume: boolean): Decision | Promise<Decision> {
  const caller = ctx.state.caller;
  if (caller?.kind === 'key') return limiter.tenant(caller.tenant.id, tenantRate(caller.plan), consume);
  return limiter.ip(clientIp(ctx).key, anon, consume);
}

/** The last policy header made, kept: a process answers most requests under one or two rates. */
let lastPolicy = { limit: -1, windowSeconds: -1, text: '' };

function policyOf(d: Decision): string {
  if (d.limit !== lastPolicy.limit || d.windowSeconds !== lastPolicy.windowSeconds) {
    lastPolicy = { limit: d.limit, windowSeconds: d.windowSeconds, text: `${d.limit};w=${d.windowSeconds}` };
  }
  return lastPolicy.text;
}

export function toRateLimitState(d: Decision): RateLimitState {
  const state: RateLimitState = {
    limit: d.limit,
    remaining: d.remaining,
    resetSeconds: d.resetSeconds,
    policy: policyOf(d),
  };
  if (!d.allowed && d.retryAfterSeconds !== undefined) state.retryAfterSeconds = d.retryAfterSeconds;
  return state;
}

/** Records the limiter's decision in ctx.state.rateLimit; a promise only when the limiter answered one. */
export type LimitStep = (ctx: AppContext) => void | Promise<void>;

/** The limiter step, on the app's limiter (deps.limiter) unless a test hands it another. */
export function createLimitStep(deps: LimitDeps, limiter: Limiter | AsyncLimiter = deps.limiter): LimitStep {
  const anon = deps.config.rateLimitAnon;
  // A bucket per caller (the same keys as the main limiter) holding its free asset requests;
  // with REDIS_URL shared by the instances, as the main buckets are.
  const assets = deps.coord.limiter(createLimiter({ clock: deps.clock }), 'rla:');
  // A limiter fault must not take the API down: serve the request unlimited, and say so.
  const failed = (ctx: AppContext, err: unknown) => deps.logger.error({ err, requestId: ctx.state.requestId }, 'rate limiter failed; request not limited');
  const record = (ctx: AppContext, d: Decision | Promise<Decision>): void | Promise<void> => {
    if (!(d instanceof Promise)) {
      ctx.state.rateLimit = toRateLimitState(d);
      return;
    }
    return d.then(
      (decided) => void (ctx.state.rateLimit = toRateLimitState(decided)),
      (err: unknown) => failed(ctx, err),
    );
  };
  return (ctx) => {
    try {
      if (isUncounted(ctx)) return record(ctx, decide(limiter, anon, ctx, false));
      if (!isAsset(ctx)) return record(ctx, decide(limiter, anon, ctx, true));
      const free = freeAsset(assets, ctx);
      if (!(free instanceof Promise)) return record(ctx, decide(limiter, anon, ctx, !free.allowed));
      return free.then((f) => record(ctx, decide(limiter, anon, ctx, !f.allowed))).catch((err: unknown) => failed(ctx, err));
    } catch (err) {
      failed(ctx, err);
      return;
    }
  };
}

/** The limiter step on its own, as a middleware (the app runs it inside src/http/gate.ts). */
export function rateLimit(deps: LimitDeps, limiter: Limiter | AsyncLimiter = deps.limiter): AppMiddleware {
  const step = createLimitStep(deps, limiter);
  return async (ctx, next) => {
    const pending = step(ctx);
    if (pending !== undefined) await pending;
    await next();
  };
}
