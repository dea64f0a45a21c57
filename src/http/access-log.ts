/** One structured log line per request: id, method, route, status, duration, tenant. No keys. */
import type { Logger } from 'pino';
import { redactUrl } from '../logger.js';
import type { AppMiddleware } from './types.js';

export const accessLog = (logger: Logger): AppMiddleware => async (ctx, next) => {
  const start = process.hrtime.bigint();
  try {
    await next();
  } finally {
    const caller = ctx.state.caller;
    logger.info(
      {
        requestId: ctx.state.requestId,
        method: ctx.method,
        url: redactUrl(ctx.originalUrl),
        route: ctx.state.route,
        status: ctx.status,
        durationMs: Number(process.hrtime.bigint() - start) / 1e6,
        tenantId: caller?.kind === 'key' ? caller.tenant.id : undefined,
      },
      'request',
    );
  }
};
