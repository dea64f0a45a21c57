/**
 * ApiRouter: a @koa/router Router whose routes are declared once, with every input and the 2xx
 * answer as zod schemas (docs/architecture.md, Request flow). The router checks the caller
 * (access and scope), the query, the path parameters and the body against the declaration and
 * hands the handler one typed object `{ query, params, body, caller }`; the handler's answer is
 * typed by the response schema. The same declarations make /openapi.json, the metrics' route
 * labels and the hostile-input test's list of routes, so none of them can drift from what is
 * checked.
 */
import Router from '@koa/router';
import type { z } from 'zod';
import { JSON_TYPE, PreparedJson } from '../read/prepared-json.js';
import { compileParams, rejectUnknownParams, type QuerySchema, type RawParams } from './validate.js';
import { requireKey } from './auth.js';
import { queryOf } from './query.js';
import { readJsonBody, requestHasBody, SMALL_BODY_BYTES } from './body.js';
import { errors } from '../errors.js';
import type { AppContext, AppState, Caller } from './types.js';
import type { Scope } from '../services/accounts.js';

/**
 * Who may call a route: anyone (`public`; a key, when sent, only picks the rate-limit bucket),
 * a valid key (`key`, with `scope` when set: 401 without a key, 403 without the scope), a signed-in
 * dashboard session (`session`: 401 without one; a state-changing method also needs the CSRF
 * token), or the operator's tools (`internal`: /healthz, /metrics).
 */
export type Access = 'public' | 'key' | 'session' | 'internal';

/** The caller of a `key` route: the key, its tenant and plan. */
export type KeyCaller = Extract<Caller, { kind: 'key' }>;

type Schema = z.ZodType | undefined;

export type RouteSpec<
  Q extends QuerySchema | undefined = QuerySchema | undefined,
  R extends Schema = Schema,
  P extends QuerySchema | undefined = QuerySchema | undefined,
  B extends Schema = Schema,
  A extends Access = Access,
  RB = unknown,
> = {
  method: 'get' | 'post' | 'delete' | 'put' | 'patch';
  path: string;
  summary: string;
  access: A;
  tag: string;
  /** Scope a `key` route needs (docs/api.md, Authentication and keys). */
  scope?: Scope;
  /** The query parameters (defaults in the schemas: `.prefault('20')`, so the document shows them). */
  query?: Q;
  /** The path parameters: one schema for each `:name` of the path, and no other. */
  params?: P;
  /** The JSON body's schema, where the route takes one: read within `bodyLimit` and validated before the handler. */
  body?: B;
  /** Largest body in bytes (default SMALL_BODY_BYTES): 413 over it, before it is all read. */
  bodyLimit?: number;
  /**
   * Reads the body instead of the JSON reader, for a body that is not one JSON value (ingest:
   * NDJSON or a large array, parsed in slices); `body` then only documents it.
   */
  readBody?: (ctx: AppContext) => Promise<RB>;
  /** Runs after the caller and parameter checks and before the body is read (sign-in counts an attempt here). */
  admit?: (ctx: AppContext) => void | Promise<void>;
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
  /**
   * The route answers with a protocol upgrade (GET /v1/stream): OpenAPI cannot describe a
   * WebSocket, so the document leaves it out and docs/api.md, Live stream, describes it.
   */
  upgrade?: 'websocket';
};

/** What a handler may answer: a value of the response schema, or one already serialised by the cache. */
export type Answer<R> = R extends z.ZodType ? z.output<R> | PreparedJson<z.output<R>> : unknown;

type Parsed<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;
type BodyOf<B, RB> = unknown extends RB ? (B extends z.ZodType ? z.output<B> : undefined) : RB;
type CallerOf<A extends Access, S> = A extends 'key' ? KeyCaller : A extends 'session' ? S : Caller;

/** The one object a handler is handed: every input, validated and typed by the route's declaration. */
export type RouteInput<Q, P, B, RB, C> = { query: Parsed<Q>; params: Parsed<P>; body: BodyOf<B, RB>; caller: C };

/**
 * How a router finds the signed-in session of a `session` route (the dashboard's cookie);
 * `write` is true for a state-changing method. It throws the 401 (or 403) itself.
 */
export type SessionResolver<S> = (ctx: AppContext, write: boolean) => S | Promise<S>;

const NONE: Record<string, never> = Object.freeze({});

/**
 * `ctx.body = answer`. A prepared (cached) answer is JSON: its type is set first, to what Koa's
 * body setter would set, so the setter finds it and looks nothing up (it reads and tests the type,
 * then resolves `json` through the MIME table, on every answer).
 */
function answerWith(ctx: AppContext, answer: unknown): void {
  if (answer instanceof PreparedJson && !ctx.res.hasHeader('Content-Type')) ctx.res.setHeader('Content-Type', JSON_TYPE);
  ctx.body = answer;
}

export class ApiRouter<S = never> {
  readonly router = new Router<AppState>();
  readonly specs: RouteSpec[] = [];
  readonly #session: SessionResolver<S> | undefined;

  constructor(opts: { session?: SessionResolver<S> } = {}) {
    this.#session = opts.session;
  }

  /** Adds a route; the handler's result, when not undefined, becomes the JSON body. */
  add<
    Q extends QuerySchema | undefined = undefined,
    R extends Schema = undefined,
    P extends QuerySchema | undefined = undefined,
    B extends Schema = undefined,
    A extends Access = Access,
    RB = unknown,
  >(spec: RouteSpec<Q, R, P, B, A, RB>, handler: (input: RouteInput<Q, P, B, RB, CallerOf<A, S>>, ctx: AppContext) => Answer<R> | Promise<Answer<R>>): this {
    this.specs.push(spec as unknown as RouteSpec);
    this.router[spec.method](spec.path, compileRoute(spec as unknown as RouteSpec, this.#session, handler as unknown as Handler));
    return this;
  }

  routes() {
    return this.router.routes();
  }
}

type Handler = (input: { query: unknown; params: unknown; body: unknown; caller: unknown }, ctx: AppContext) => unknown;

/** The names of a koa-style path's parameters, in order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);

/**
 * Everything a route's declaration decides, worked out once when the route is added: the
 * parsers, the set of known parameters, whether a body is read and how. What runs per request is
 * the returned function, which allocates the handler's input object and nothing else, and
 * makes no promise of its own when the handler answers without one (a cached answer).
 */
function compileRoute(spec: RouteSpec, session: SessionResolver<unknown> | undefined, handler: Handler) {
  const declared = pathParams(spec.path);
  const given = spec.params ? Object.keys(spec.params.shape) : [];
  if (declared.join() !== given.join()) throw new Error(`${spec.path}: params must declare exactly ${declared.join(', ') || 'nothing'}`);
  if (spec.access === 'session' && session === undefined) throw new Error(`${spec.path}: a session route needs a router built with a session resolver`);
  const { path, access, scope, admit } = spec;
  const write = spec.method !== 'get';
  // /v1 refuses parameters it does not know; /udf and the pages ignore them (adapters add their own).
  const known = path.startsWith('/v1/') ? new Set(spec.query ? Object.keys(spec.query.shape) : []) : null;
  const query = spec.query ? compileParams(spec.query) : null;
  const params = spec.params ? compileParams(spec.params) : null;
  const bodySchema = spec.body;
  const bodyOpts = { limit: spec.bodyLimit ?? SMALL_BODY_BYTES };
  const readBody: ((ctx: AppContext) => Promise<unknown>) | null =
    spec.readBody ?? (bodySchema === undefined ? null : (ctx) => readJsonBody(ctx, bodySchema, bodyOpts));

  /** The body (when the route reads one), the handler, its answer; a promise only where one is awaited. */
  const finish = async (ctx: AppContext, input: { query: unknown; params: unknown; body: unknown; caller: unknown }): Promise<void> => {
    if (admit !== undefined) await admit(ctx);
    if (readBody !== null) input.body = await readBody(ctx);
    let result = handler(input, ctx);
    if (result instanceof Promise) result = await result;
    if (result !== undefined) answerWith(ctx, result);
  };
  const run = (ctx: AppContext, caller: unknown): Promise<void> | undefined => {
    const raw = query === null && known === null ? NONE : queryOf(ctx);
    if (known !== null) rejectUnknownParams(known, raw);
    // A route without a body takes none: refused before a byte of it is read.
    if (readBody === null && requestHasBody(ctx)) throw errors.bodyNotAllowed();
    const input = {
      query: query === null ? NONE : query(raw),
      params: params === null ? NONE : params(ctx.params as RawParams),
      body: undefined as unknown,
      caller,
    };
    if (admit !== undefined || readBody !== null) return finish(ctx, input);
    // A handler that answers from memory (a cached answer) is not awaited: no promise on its path.
    const result = handler(input, ctx);
    if (result instanceof Promise)
      return result.then((answer: unknown) => {
        if (answer !== undefined) answerWith(ctx, answer);
      });
    if (result !== undefined) answerWith(ctx, result);
    return undefined;
  };

  // Not async: the router's own dispatch (koa-compose) turns a throw into a rejection.
  return (ctx: AppContext): Promise<void> | undefined => {
    ctx.state.route = path;
    // The caller first: one without a key gets 401 (403 without the scope), whatever the input.
    // A session is looked up in the store (a promise); only such a caller is awaited.
    const caller: unknown = access === 'key' ? requireKey(ctx, scope) : access === 'session' ? session!(ctx, write) : ctx.state.caller;
    return caller instanceof Promise ? caller.then((c: unknown) => run(ctx, c)) : run(ctx, caller);
  };
}
