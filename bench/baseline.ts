/**
 * The baseline route of the benchmark: `GET /bench/baseline/:name` answers a fixed in-memory
 * body (a copy of a real route's answer, so the same size and the same compression work).
 * Appended with app.use after createApp, it runs only when no route matched, inside the whole
 * middleware stack (request id, access log, errors, compression, CORS, caller, limiter, ETag):
 * it is the ceiling a route could reach if its handler cost nothing.
 */
import type { Middleware } from 'koa';

export const BASELINE_PREFIX = '/bench/baseline/';

/** The middleware; `bodies` maps a name to its fixed body and may be filled later. */
export function baselineRoute(bodies: ReadonlyMap<string, unknown>): Middleware {
  return async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path.startsWith(BASELINE_PREFIX)) {
      const body = bodies.get(ctx.path.slice(BASELINE_PREFIX.length));
      if (body !== undefined) {
        ctx.body = body;
        return;
      }
    }
    await next();
  };
}
