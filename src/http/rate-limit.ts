/**
 * The rate-limit decision for each request (DESIGN.md section 8). Placeholder until the limiter
 * lands: it decides nothing, so no RateLimit-* headers are written yet.
 */
import type { AppDeps, AppMiddleware } from './types.js';

export function rateLimit(_deps: AppDeps): AppMiddleware {
  return async (_ctx, next) => {
    await next();
  };
}
