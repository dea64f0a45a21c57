/**
 * The metrics step: counts every answered request by method, route pattern and status, and
 * times it. It runs once the error envelope is written (src/http/edge.ts), so it sees the final
 * status of every request (429s and 401s included). A request refused before routing (429, 401)
 * is still labelled with the pattern its path would have matched, so label values stay a small
 * fixed set: the declared routes, plus 'unmatched'.
 */
import type { Metrics } from '../services/metrics.js';
import type { RouteSpec } from './route.js';
import type { AppContext, AppMiddleware } from './types.js';

export const UNMATCHED = 'unmatched';

type Pattern = { method: string; path: string; re: RegExp };

/** Compiles a koa-style path (`/v1/token/:address/trades`) into an anchored regular expression. */
export function patternRegExp(path: string): RegExp {
  const parts = path.split('/').map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('/')}/?$`);
}

/** The route label of a request: the pattern the router set, else the one its path matches. */
function routeLabel(patterns: readonly Pattern[], ctx: AppContext): string {
  if (ctx.state.route !== undefined) return ctx.state.route;
  const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
  const path = ctx.path;
  for (const p of patterns) if (p.method === method && p.re.test(path)) return p.path;
  return UNMATCHED;
}

function ingestAnswer(body: unknown): { accepted: number; duplicates: number } | null {
  if (body === null || typeof body !== 'object') return null;
  const { accepted, duplicates } = body as Record<string, unknown>;
  return typeof accepted === 'number' && typeof duplicates === 'number' ? { accepted, duplicates } : null;
}

/** Counts one answered request; `start` is its performance.now() on arrival. */
export type RequestObserver = (ctx: AppContext, start: number) => void;

/** The observer counting into `metrics`; `routes` are every declared route of the app. */
export function createRequestObserver(metrics: Metrics, routes: readonly RouteSpec[]): RequestObserver {
  const patterns: Pattern[] = routes.map((s) => ({ method: s.method.toUpperCase(), path: s.path, re: patternRegExp(s.path) }));
  return (ctx, start) => {
    const route = routeLabel(patterns, ctx);
    metrics.observeRequest({
      method: ctx.req.method ?? '',
      route,
      status: ctx.res.statusCode,
      seconds: (performance.now() - start) / 1e3,
      caller: ctx.state.caller?.kind === 'key' ? 'tenant' : 'anonymous',
    });
    if (route === '/v1/ingest' && ctx.method === 'POST' && ctx.status === 200) {
      const answer = ingestAnswer(ctx.body);
      if (answer !== null) metrics.ingested('http', answer);
    }
  };
}

/** The metrics step on its own, as a middleware (the app runs it inside src/http/edge.ts). */
export const metricsMiddleware = (metrics: Metrics, routes: readonly RouteSpec[]): AppMiddleware => {
  const observe = createRequestObserver(metrics, routes);
  return async (ctx, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      observe(ctx, start);
    }
  };
};
