/**
 * CORS for every public route (docs/api.md, TradingView UDF datafeed): the allowed origin from CORS_ORIGINS,
 * Vary: Origin, the rate-limit headers exposed, and 204 preflights that allow the key headers.
 * The dashboard's cookie routes are same-origin only and get none of it.
 */
import cors from '@koa/cors';
import type { Config } from '../config.js';
import type { AppMiddleware } from './types.js';

export const EXPOSED_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'ETag'];

export function corsMiddleware(config: Config): AppMiddleware {
  const allowed = config.corsOrigins;
  const inner = cors({
    origin: (ctx) => {
      if (allowed === '*') return '*';
      const origin = ctx.get('Origin');
      return allowed.includes(origin) ? origin : '';
    },
    exposeHeaders: EXPOSED_HEADERS,
    allowHeaders: ['x-api-key', 'authorization', 'content-type', 'x-request-id', 'if-none-match'],
    allowMethods: ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'],
    maxAge: 600,
    keepHeadersOnError: false,
  }) as unknown as AppMiddleware;
  return async (ctx, next) => {
    if (ctx.path.startsWith('/dashboard')) return next();
    ctx.vary('Origin');
    return inner(ctx, next);
  };
}
