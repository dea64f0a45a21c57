/**
 * The outer step of every request (docs/architecture.md, Request flow), one function doing in
 * order what were five middleware layers: the request id, the check for other processes' writes,
 * `Vary: Accept-Encoding`; then, once the inner steps and the route have answered, compression of
 * a large answer, the error envelope (for a throw, or a route that answered nothing), the
 * RateLimit-* headers, and last the metrics and the access log, which so see the final status.
 * One function means one promise and one await per request where each layer cost its own.
 */
import type { Logger } from 'pino';
import type { AppMiddleware } from './types.js';
import type { StoreHandle } from '../store/port/handle.js';
import type { Services } from '../services/index.js';
import type { RouteSpec } from './route.js';
import { stampRequest } from './request-id.js';
import { accessLevel, writeLine } from './access-log.js';
import { createRequestObserver } from './metrics.js';
import { answerError, checkAnswer } from './error-handler.js';
import { createCompressor } from './compression.js';
import { writeRateLimitHeaders } from './rate-limit-headers.js';

/** The outer middleware of `deps`' app; `routes` label the metrics (every declared route). */
export function edge(deps: { store: StoreHandle; logger: Logger; services: Pick<Services, 'metrics'> }, routes: readonly RouteSpec[]): AppMiddleware {
  const { store, logger } = deps;
  const observe = createRequestObserver(deps.services.metrics, routes);
  const compress = createCompressor();
  return async function edgeStep(ctx, next) {
    const start = performance.now();
    stampRequest(ctx);
    try {
      try {
        // Reads in SQL see other processes' writes by themselves (src/store/sqlite/db.ts); the caches
        // in front of SQL (keys, answers, symbol names) are made to see them here, once, before
        // any is read. A store that fails here fails again where it is read, and is answered
        // there: after the limiter, so the 500 keeps its RateLimit-* headers.
        store.checkExternalChanges();
      } catch {
        // answered where the store is read
      }
      // Nothing has set Vary yet (the value Koa's ctx.vary would write, without parsing it).
      if (ctx.res.hasHeader('Vary')) ctx.vary('Accept-Encoding');
      else ctx.res.setHeader('Vary', 'Accept-Encoding');
      await next();
      const compressing = compress(ctx);
      if (compressing !== undefined) await compressing;
      checkAnswer(ctx);
    } catch (err) {
      answerError(ctx, err);
    } finally {
      writeRateLimitHeaders(ctx);
      observe(ctx, start);
      // Checked per request, not once: the level can be changed while the server runs. A line the
      // level drops is never built (docs/operations.md, Benchmark); health probes log at debug.
      const level = accessLevel(ctx);
      if (logger.isLevelEnabled(level)) writeLine(logger, ctx, start, level);
    }
  };
}
