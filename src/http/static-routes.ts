/**
 * Dispatch of the routes whose path has no parameter (/udf/history, /udf/time, /healthz, ...) by
 * one map lookup, in front of @koa/router (docs/architecture.md, Request flow). The router, per
 * request, tests every route's pattern, builds a chain of closures and composes it; for a path
 * that only its own routes match, that work always ends in the same handler, so it is done once
 * here. Anything else (a path with parameters, a trailing slash or other case the patterns also
 * accept, a method the path does not serve: 405, OPTIONS) goes to the router as before.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppMiddleware, AppState } from './types.js';

type Layer = Router<AppState>['stack'][number];

/** `root.routes()`, with the static paths that no other route's pattern matches dispatched directly. */
export function staticFirst(root: Router<AppState>): AppMiddleware {
  const routes = root.routes() as unknown as AppMiddleware;
  // By method, then path: two lookups of strings the request already holds, no key built per request.
  const table = new Map<string, Map<string, AppMiddleware>>();
  for (const layer of root.stack) {
    if (!isStatic(layer)) continue;
    const path = layer.path as string;
    // Exact only when every layer the path matches is one of this path's own routes: the
    // router would otherwise run another (a `use`, a pattern) first.
    if (root.stack.some((other) => other.path !== path && other.match(path))) continue;
    // The router runs a path's layers in order; ours end the chain, so the first one answers.
    for (const method of layer.methods) {
      let paths = table.get(method);
      if (paths === undefined) table.set(method, (paths = new Map()));
      if (!paths.has(path)) paths.set(path, layer.stack[0] as unknown as AppMiddleware);
    }
  }
  const empty = Object.freeze({});
  const dispatch: AppMiddleware & { router?: Router<AppState> } = (ctx, next) => {
    const handler = table.get(ctx.req.method ?? '')?.get(ctx.request.path);
    if (handler === undefined) return routes(ctx, next);
    // What the router gives a route without parameters.
    (ctx as { params?: object }).params = empty;
    return handler(ctx, next) as ReturnType<Middleware>;
  };
  // As on the router's own middleware: what lists an app's routes finds them here.
  dispatch.router = root;
  return dispatch;
}

/** A route (not a `use`) of one handler on a plain path without parameters. */
function isStatic(layer: Layer): boolean {
  return typeof layer.path === 'string' && layer.paramNames.length === 0 && layer.methods.length > 0 && layer.stack.length === 1 && !/[*(?:]/.test(layer.path);
}
