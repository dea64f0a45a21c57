/** The RateLimit-* response headers (draft-ietf-httpapi-ratelimit-headers-06 form). */
import { errors } from '../errors.js';
import type { AppContext, AppMiddleware } from './types.js';

export function writeRateLimitHeaders(ctx: AppContext): void {
  const r = ctx.state.rateLimit;
  if (!r) return;
  // Straight to Node, as Koa's ctx.set would (it too skips an answer already sent), without the
  // arrays it builds per call.
  const res = ctx.res;
  if (res.headersSent) return;
  res.setHeader('RateLimit-Limit', String(r.limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, r.remaining)));
  res.setHeader('RateLimit-Reset', String(Math.max(0, r.resetSeconds)));
  res.setHeader('RateLimit-Policy', r.policy);
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
