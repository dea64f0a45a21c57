/**
 * ApiRouter: a @koa/router Router whose routes declare their inputs as zod schemas. Handlers get
 * the parsed query; the declarations are kept so /openapi.json describes exactly what is checked.
 * A keyed route checks the key (and its scope) before the query.
 */
import Router from '@koa/router';
import type { z } from 'zod';
import { parseQuery, type QuerySchema } from './validate.js';
import { requireKey } from './auth.js';
import { requestHasBody } from './body.js';
import { bodyNotAllowed } from '../errors.js';
import type { AppContext, AppState } from './types.js';
import type { Scope } from '../services/accounts.js';

export type Access = 'public' | 'keyed' | 'session' | 'internal';

export type RouteSpec<Q extends QuerySchema | undefined = QuerySchema | undefined> = {
  method: 'get' | 'post' | 'delete' | 'put' | 'patch';
  path: string;
  summary: string;
  access: Access;
  tag: string;
  query?: Q;
  /** The JSON body's schema, where the route takes one (validated by the handler). */
  body?: z.ZodType;
  /** Media types the body may come in (default application/json); NDJSON carries one item of `body` per line. */
  bodyMediaTypes?: readonly ('application/json' | 'application/x-ndjson')[];
  /** Scope a keyed route needs (README, Authentication and keys). */
  scope?: Scope;
};

type Handler<Q> = (ctx: AppContext, query: Q) => unknown | Promise<unknown>;

export class ApiRouter {
  readonly router = new Router<AppState>();
  readonly specs: RouteSpec[] = [];

  /** Adds a route; the handler's result, when not undefined, becomes the JSON body. */
  add<Q extends QuerySchema | undefined>(spec: RouteSpec<Q>, handler: Handler<Q extends QuerySchema ? z.output<Q> : Record<string, never>>): this {
    this.specs.push(spec as RouteSpec);
    this.router[spec.method](spec.path, async (ctx) => {
      ctx.state.route = spec.path;
      // The key first: a caller without one gets 401 (403 without the scope), whatever the query.
      if (spec.access === 'keyed') requireKey(ctx, spec.scope);
      // A route without a body schema takes no body: refused before a byte of it is read.
      if (spec.body === undefined && requestHasBody(ctx)) throw bodyNotAllowed();
      const query = spec.query ? parseQuery(spec.query, ctx.query) : {};
      const result = await handler(ctx as AppContext, query as never);
      if (result !== undefined) ctx.body = result;
    });
    return this;
  }

  routes() {
    return this.router.routes();
  }
}
