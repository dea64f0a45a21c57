/** The RateLimit-* response headers (draft-ietf-httpapi-ratelimit-headers-06 form). */
import { errors } from '../errors.js';
import type { AppContext, AppMiddleware } from './types.js';

export function writeRateLimitHeaders(ctx: AppContext): void {
  const r = ctx.state.rateLimit;
  if (!r) return;
  ctx.set('RateLimit-Limit', String(r.limit));
  ctx.set('RateLimit-Remaining', String(Math.max(0, r.remaining)));
  ctx.set('RateLimit-Reset', String(Math.max(0, r.resetSeconds)));
  ctx.set('RateLimit-Policy', r.policy);
}

/**
 * Throws the 429 when the limiter refused the request. Runs after CORS, so a refused browser call
 * still carries the CORS headers it needs to read the answer.
 */
export function refuseIfLimited(ctx: AppContext): void {
  const r = ctx.state.rateLimit;
  if (r?.retryAfterSeconds !== undefined) {
    throw errors.rateLimited(`too many requests; retry in ${r.retryAfterSeconds} s`, r.retryAfterSeconds);
  }
}

/** The 429 step on its own, as a middleware (the app runs it inside src/http/gate.ts). */
export const enforceRateLimit = (): AppMiddleware => async (ctx, next) => {
  refuseIfLimited(ctx);
  await next();
};
