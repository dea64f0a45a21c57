/**
 * One structured log line per request: id, method, route, status, duration, tenant and key id.
 * Never a key: the URL goes through redactUrl (`?key=` and anything key-like) and no header is
 * logged. A line the log level drops is not built at all: redacting and formatting it cost more
 * than a small cached answer (docs/operations.md, Benchmark). Health probes (`/healthz`, asked
 * every few seconds by a load balancer or an orchestrator) log at debug, so they do not fill the
 * info log.
 */
import type { Logger } from 'pino';
import { redactUrl } from '../logger.js';
import type { AppContext, AppMiddleware } from './types.js';

export const accessLog =
  (logger: Logger): AppMiddleware =>
  async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      // Checked per request, not once: the level can be changed while the server runs.
      const level = accessLevel(ctx);
      if (logger.isLevelEnabled(level)) writeLine(logger, ctx, start, level);
    }
  };

/** The level of a request's line: debug for health probes, info for the rest. */
export const accessLevel = (ctx: AppContext): 'debug' | 'info' => (ctx.path === '/healthz' ? 'debug' : 'info');

/**
 * Writes the request's line at `level` (callers check the level first, from accessLevel);
 * `start` is its performance.now() on arrival.
 */
export function writeLine(logger: Logger, ctx: AppContext, start: number, level: 'debug' | 'info' = 'info'): void {
  const caller = ctx.state.caller;
  logger[level](
    {
      requestId: ctx.state.requestId,
      method: ctx.method,
      url: redactUrl(ctx.originalUrl),
      route: ctx.state.route,
      status: ctx.status,
      durationMs: performance.now() - start,
      tenantId: caller?.kind === 'key' ? caller.tenant.id : undefined,
      keyId: caller?.kind === 'key' ? caller.key.id : undefined,
    },
    'request',
  );
}
