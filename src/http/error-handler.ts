/**
 * The outer error handler: turns any thrown error, and a route that answered nothing, into the
 * envelope of docs/api.md, Conventions. It writes the body itself instead of Koa's ctx.onerror, which
 * would drop every header set so far (the rate-limit headers among them). On /udf the body also
 * carries the UDF form (`s`, `errmsg`), because the stock adapter reads the body, not the status.
 */
import { errorEnvelope, errors, isStoreFull, toApiError } from '../errors.js';
import { markStoreFull, markStoreWritable } from './health.js';
import { writeRateLimitHeaders } from './rate-limit-headers.js';
import { fromServiceError } from './service-errors.js';
import type { AppContext, AppMiddleware } from './types.js';
import type { StoreHandle } from '../store/port/handle.js';

export const errorHandler = (): AppMiddleware => async (ctx, next) => {
  try {
    await next();
    checkAnswer(ctx);
  } catch (err) {
    answerError(ctx, err);
  }
  writeRateLimitHeaders(ctx);
};

/** After the routes: a route that answered nothing becomes its error; a write that went through clears "store full". */
export function checkAnswer(ctx: AppContext): void {
  if (ctx.body == null && ctx.status === 404) throw errors.notFound();
  // The router answers 501 for a method it serves on no route at all (TRACE, PROPFIND, ...):
  // to a client that is the same as 405, so it gets the same envelope and Allow header.
  if (ctx.body == null && (ctx.status === 405 || ctx.status === 501)) {
    throw errors.methodNotAllowed(ctx.method, String(ctx.response.get('Allow') ?? ''));
  }
  // A write went through: a store reported full has room again (see /healthz).
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD' && ctx.method !== 'OPTIONS' && ctx.status < 300) {
    const store = storeOf(ctx);
    if (store) markStoreWritable(store);
  }
}

/** Answers a thrown error with its envelope (and marks the store full when that is the cause). */
export function answerError(ctx: AppContext, err: unknown): void {
  const store = storeOf(ctx);
  if (store && isStoreFull(err)) markStoreFull(store);
  writeError(ctx, err);
}

/** The app's store, when the app is createApp's (tests may mount this handler on a bare Koa). */
const storeOf = (ctx: AppContext) => (ctx.app as { deps?: { store?: StoreHandle } }).deps?.store;

export function writeError(ctx: AppContext, err: unknown): void {
  const e = toApiError(fromServiceError(err));
  if (e.status >= 500) ctx.app.emit('error', err, ctx);
  ctx.status = e.status;
  for (const [name, value] of Object.entries(e.headers)) ctx.set(name, value);
  const body: Record<string, unknown> = errorEnvelope(e, ctx.state.requestId ?? '');
  ctx.body = ctx.path.startsWith('/udf/') || ctx.path === '/udf' ? { s: 'error', errmsg: e.message, ...body } : body;
}
