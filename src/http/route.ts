/**
 * ApiRouter: a @koa/router Router whose routes declare their inputs and their 2xx answer as zod
 * schemas. Handlers get the parsed query, and their return value is typed by the response schema;
 * the declarations are kept so /openapi.json describes exactly what is checked and answered.
 * A keyed route checks the key (and its scope) before the query.
 */
import Router from '@koa/router';
import type { z } from 'zod';
import type { PreparedJson } from './prepared-json.js';
import { parseQuery, rejectUnknownParams, type QuerySchema } from './validate.js';
import { requireKey } from './auth.js';
import { requestHasBody } from './body.js';
import { bodyNotAllowed } from '../errors.js';
import type { AppContext, AppState } from './types.js';
import type { Scope } from '../services/accounts.js';

export type Access = 'public' | 'keyed' | 'session' | 'internal';

export type RouteSpec<Q extends QuerySchema | undefined = QuerySchema | undefined, R extends z.ZodType | undefined = z.ZodType | undefined> = {
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
  /** The 2xx body's schema: the handler's answer is typed by it, and /openapi.json documents it. */
  response?: R;
  /** One answer as the route gives it (must validate against `response`), shown in the document. */
  example?: R extends z.ZodType ? z.output<R> : never;
  /** The answer's media type (default application/json; /udf/time is text/plain). */
  responseType?: 'application/json' | 'text/plain';
  /** The success statuses the route answers with (default [200]). */
  statuses?: readonly (200 | 201)[];
  /** Scope a keyed route needs (docs/api.md, Authentication and keys). */
  scope?: Scope;
  /**
   * The route answers with a protocol upgrade (GET /v1/stream): OpenAPI cannot describe a
   * WebSocket, so the document leaves it out and the README's Live stream section describes it.
   */
  upgrade?: 'websocket';
};

/** What a handler may answer: a value of the response schema, or one already serialised by the cache. */
export type Answer<R> = R extends z.ZodType ? z.output<R> | PreparedJson<z.output<R>> : unknown;

type Handler<Q, A> = (ctx: AppContext, query: Q) => A | Promise<A>;

export class ApiRouter {
  readonly router = new Router<AppState>();
  readonly specs: RouteSpec[] = [];

  /** Adds a route; the handler's result, when not undefined, becomes the JSON body. */
  add<Q extends QuerySchema | undefined, R extends z.ZodType | undefined = undefined>(
    spec: RouteSpec<Q, R>,
    handler: Handler<Q extends QuerySchema ? z.output<Q> : Record<string, never>, Answer<R>>,
  ): this {
    this.specs.push(spec as unknown as RouteSpec);
    // /v1 refuses parameters it does not know; /udf ignores them (adapters add their own).
    const strict = spec.path.startsWith('/v1/');
    const known = spec.query ? Object.keys(spec.query.shape) : [];
    this.router[spec.method](spec.path, async (ctx) => {
      ctx.state.route = spec.path;
      // The key first: a caller without one gets 401 (403 without the scope), whatever the query.
      if (spec.access === 'keyed') requireKey(ctx, spec.scope);
      if (strict) rejectUnknownParams(known, ctx.query);
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
