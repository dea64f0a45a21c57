/**
 * CORS for every public route (docs/api.md, TradingView UDF datafeed): the allowed origin from CORS_ORIGINS,
 * Vary: Origin, the rate-limit headers exposed, and 204 preflights that allow the key headers.
 * The dashboard's cookie routes are same-origin only and get none of it.
 *
 * The headers are those @koa/cors writes with these options (keepHeadersOnError off: the error
 * envelope keeps what was set before it), written inline as one synchronous step of
 * src/http/gate.ts: @koa/cors awaits its origin callback on every request.
 */
import type { Config } from '../config.js';
import type { AppContext, AppMiddleware } from './types.js';

export const EXPOSED_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'ETag'];

const EXPOSE = EXPOSED_HEADERS.join(',');
const ALLOW_HEADERS = ['x-api-key', 'authorization', 'content-type', 'x-request-id', 'if-none-match'].join(',');
const ALLOW_METHODS = ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'].join(',');
const MAX_AGE = '600';

/** Writes the CORS headers; true when the request was a preflight, answered here (204). */
export type CorsStep = (ctx: AppContext) => boolean;

export function createCors(config: Config): CorsStep {
  const allowed = config.corsOrigins;
  return (ctx) => {
    if (ctx.request.path.startsWith('/dashboard')) return false;
    // The edge has set `Vary: Accept-Encoding`: the value Koa's ctx.vary would make of it, without parsing.
    const res = ctx.res;
    if (res.getHeader('Vary') === 'Accept-Encoding') res.setHeader('Vary', 'Accept-Encoding, Origin');
    else ctx.vary('Origin');
    let origin = '*';
    if (allowed !== '*') {
      origin = ctx.get('Origin');
      if (origin === '' || !allowed.includes(origin)) return false;
    }
    if (ctx.req.method !== 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSE);
      return false;
    }
    // An OPTIONS without Access-Control-Request-Method is not a preflight: the routes answer it.
    if (ctx.get('Access-Control-Request-Method') === '') return false;
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Max-Age', MAX_AGE);
    ctx.set('Access-Control-Allow-Methods', ALLOW_METHODS);
    ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
    ctx.status = 204;
    return true;
  };
}

/** The CORS step on its own, as a middleware (the app runs it inside src/http/gate.ts). */
export function corsMiddleware(config: Config): AppMiddleware {
  const cors = createCors(config);
  return (ctx, next) => (cors(ctx) ? Promise.resolve() : next());
}
