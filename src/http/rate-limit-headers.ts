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
 * Answers 429 when the limiter refused the request. Runs after CORS, so a refused browser call
 * still carries the CORS headers it needs to read the answer.
 */
export const enforceRateLimit = (): AppMiddleware => async (ctx, next) => {
  const r = ctx.state.rateLimit;
  if (r?.retryAfterSeconds !== undefined) {
    throw errors.rateLimited(`too many requests; retry in ${r.retryAfterSeconds} s`, r.retryAfterSeconds);
  }
  await next();
};
