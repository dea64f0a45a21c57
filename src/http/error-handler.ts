/**
 * The outer error handler: turns any thrown error, and a route that answered nothing, into the
 * envelope of DESIGN.md section 4. It writes the body itself instead of Koa's ctx.onerror, which
 * would drop every header set so far (the rate-limit headers among them). On /udf the body also
 * carries the UDF form (`s`, `errmsg`), because the stock adapter reads the body, not the status.
 */
import { ApiError, errorEnvelope, toApiError } from '../errors.js';
import { writeRateLimitHeaders } from './rate-limit-headers.js';
import { fromServiceError } from './service-errors.js';
import type { AppContext, AppMiddleware } from './types.js';

export const errorHandler = (): AppMiddleware => async (ctx, next) => {
  try {
    await next();
    if (ctx.body == null && ctx.status === 404) throw new ApiError(404, 'not_found', 'no such route');
    // The router answers 501 for a method it serves on no route at all (TRACE, PROPFIND, ...):
    // to a client that is the same as 405, so it gets the same envelope and Allow header.
    if (ctx.body == null && (ctx.status === 405 || ctx.status === 501)) {
      throw new ApiError(405, 'method_not_allowed', `${ctx.method} is not allowed here`, { headers: { Allow: String(ctx.response.get('Allow') ?? '') } });
    }
  } catch (err) {
    writeError(ctx, err);
  }
  writeRateLimitHeaders(ctx);
};

export function writeError(ctx: AppContext, err: unknown): void {
  const e = toApiError(fromServiceError(err));
  if (e.status >= 500) ctx.app.emit('error', err, ctx);
  ctx.status = e.status;
  for (const [name, value] of Object.entries(e.headers)) ctx.set(name, value);
  const body: Record<string, unknown> = errorEnvelope(e, ctx.state.requestId ?? '');
  ctx.body = ctx.path.startsWith('/udf/') || ctx.path === '/udf' ? { s: 'error', errmsg: e.message, ...body } : body;
}
