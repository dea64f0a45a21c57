/**
 * The OpenAPI 3.1 document of every /v1 and /udf route, built from the same route specs (and zod
 * schemas) that validate requests, so the document cannot drift from what is checked. Query
 * schemas are strings refined by predicates ("must be an integer from 1 to 1000"); z.toJSONSchema
 * sees only `type: string` in them, so the predicates are read back from the schemas and turned
 * into a description plus pattern / enum / length keywords where they map onto one.
 */
import { z } from 'zod';
import type { RouteSpec } from './route.js';

type JsonSchema = Record<string, unknown>;
type ZodAny = z.core.$ZodType;

/** Routes the document describes: the public API, not pages, operations or the dashboard. */
export const documented = (spec: RouteSpec): boolean => spec.path.startsWith('/v1/') || spec.path.startsWith('/udf/');

/** `/v1/token/:address/trades` -> `/v1/token/{address}/trades` */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

/** The names of a koa-style path's parameters, in order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);

const DECIMAL_PATTERN = '^(0|[1-9][0-9]*)$';

type Def = { type: string; innerType?: ZodAny; in?: ZodAny; checks?: ZodAny[]; shape?: Record<string, ZodAny> };
const defOf = (s: ZodAny): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Wrappers that do not change what a value must look like on the way in. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

function unwrap(schema: ZodAny): ZodAny {
  let cur = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(cur);
    if (WRAPPERS.has(def.type) && def.innerType) cur = def.innerType;
    else if (def.type === 'pipe' && def.in) cur = def.in;
    else break;
  }
  return cur;
}

/** The messages of the custom checks (refine) on a schema: the predicates a value must meet. */
export function predicates(schema: ZodAny): string[] {
  const out: string[] = [];
  let cur: ZodAny | undefined = schema;
  for (let i = 0; cur !== undefined && i < 20; i++) {
    const def = defOf(cur);
    for (const check of def.checks ?? []) {
      const cdef = defOf(check) as Def & { check?: string; error?: (issue: unknown) => unknown };
      if (cdef.check !== 'custom' || typeof cdef.error !== 'function') continue;
      try {
        const m = cdef.error({ code: 'custom', input: undefined });
        const text = typeof m === 'string' ? m : typeof (m as { message?: unknown })?.message === 'string' ? (m as { message: string }).message : null;
        if (text !== null && !out.includes(text)) out.push(text);
      } catch {
        // a dynamic message that needs the real issue: nothing to show
      }
    }
    cur = WRAPPERS.has(def.type) ? def.innerType : def.type === 'pipe' ? def.in : undefined;
  }
  return out;
}

function toJson(schema: ZodAny): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Adds what the predicates say to a field's JSON Schema. `where` decides how numbers travel. */
function annotate(json: JsonSchema, schema: ZodAny, where: 'query' | 'body'): JsonSchema {
  const said = predicates(schema);
  if (said.length === 0) return json;
  const out: JsonSchema = { ...json };
  for (const p of said) {
    let m: RegExpMatchArray | null;
    if ((m = p.match(/^must be an integer from (\d+) to (\d+)$/))) {
      if (where === 'query') Object.assign(out, { type: 'string', pattern: DECIMAL_PATTERN });
      else Object.assign(out, { type: 'integer', minimum: Number(m[1]), maximum: Number(m[2]) });
    } else if ((m = p.match(/^must be one of (.+)$/))) {
      Object.assign(out, { type: 'string', enum: m[1]!.split(', ') });
    } else if ((m = p.match(/^must (?:have|be a string of) (\d+) to (\d+) characters$/))) {
      Object.assign(out, { type: 'string', minLength: Number(m[1]), maxLength: Number(m[2]) });
    }
  }
  if (out.description === undefined) {
    const text = said.join('; ');
    out.description = `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  }
  return out;
}

/** The JSON Schema of a body, with each top-level field annotated. */
function bodySchema(schema: ZodAny): JsonSchema {
  const json = annotate(toJson(schema), schema, 'body');
  const shape = defOf(unwrap(schema)).shape;
  const props = json.properties as Record<string, JsonSchema> | undefined;
  if (shape && props) for (const [name, field] of Object.entries(shape)) if (props[name]) props[name] = annotate(props[name]!, field, 'body');
  return json;
}

const isOptional = (schema: ZodAny): boolean => (schema as unknown as { _zod: { optin?: string } })._zod.optin === 'optional';

type Parameter = { name: string; in: 'query' | 'path'; required: boolean; description?: string; schema: JsonSchema };

function parameters(spec: RouteSpec): Parameter[] {
  const params: Parameter[] = pathParams(spec.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    ...(name === 'address' ? { description: 'A token address: base58 (32-44 characters) or 0x + 40 hex.' } : {}),
    schema: { type: 'string' },
  }));
  const shape = spec.query ? (spec.query.shape as Record<string, ZodAny>) : {};
  for (const [name, field] of Object.entries(shape)) {
    const schema = annotate(toJson(field), field, 'query');
    const { description, ...rest } = schema;
    params.push({
      name,
      in: 'query',
      required: !isOptional(field),
      ...(typeof description === 'string' ? { description: `${name}: ${description}` } : {}),
      schema: rest,
    });
  }
  return params;
}

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });

function operation(spec: RouteSpec) {
  const udf = spec.path.startsWith('/udf/');
  const params = parameters(spec);
  const keyed = spec.access === 'keyed';
  const schemes = [{ apiKey: [] }, { bearer: [] }, ...(udf ? [{ queryKey: [] }] : [])];
  const responses: Record<string, unknown> = {};
  if (spec.method === 'get') {
    responses['200'] = { description: 'OK', headers: rateLimitHeaderRefs(), content: { 'application/json': { schema: {} } } };
    responses['304'] = { description: 'Not modified (If-None-Match matched the ETag)' };
  } else {
    responses['2XX'] = { description: 'OK (201 when something was created)', headers: rateLimitHeaderRefs(), content: { 'application/json': { schema: {} } } };
  }
  const err = udf ? 'Udf' : '';
  if (params.some((p) => p.in === 'query') || pathParams(spec.path).length > 0 || spec.body) responses['400'] = ref(`BadRequest${err}`);
  responses['401'] = ref(`Unauthorized${err}`);
  if (keyed) responses['403'] = ref(`Forbidden${err}`);
  if (pathParams(spec.path).length > 0 || udf) responses['404'] = ref(`NotFound${err}`);
  if (spec.body) {
    responses['413'] = ref('PayloadTooLarge');
    responses['415'] = ref('UnsupportedMediaType');
  }
  responses['429'] = ref(`RateLimited${err}`);

  const op: Record<string, unknown> = {
    operationId: operationId(spec),
    summary: spec.summary,
    tags: [spec.tag],
    // Public routes declare no security, so the docs show no padlock on them; that a key may
    // still be sent (and then counts against its tenant's limit) is said in the description.
    security: keyed ? schemes : [],
    parameters: params,
    responses,
  };
  if (keyed && spec.scope) op.description = `Needs a key with scope \`${spec.scope}\`.`;
  if (!keyed) {
    op.description =
      `Public: no key needed. A key, when sent (x-api-key or Authorization: Bearer${udf ? ', or ?key=' : ''}), ` +
      "makes the request count against its tenant's rate limit instead of the IP's; an invalid one is a 401.";
  }
  if (spec.body) {
    const json = bodySchema(spec.body);
    const content: Record<string, unknown> = {};
    for (const type of spec.bodyMediaTypes ?? ['application/json']) {
      content[type] =
        type === 'application/x-ndjson'
          ? { schema: { type: 'string', description: 'NDJSON: one JSON record per line, each an item of the application/json array' } }
          : { schema: json };
    }
    op.requestBody = { required: false, content };
  }
  return op;
}

export const operationId = (spec: RouteSpec): string =>
  spec.method + spec.path.replace(/[^A-Za-z0-9]+([A-Za-z0-9])?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''));

const RATE_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
const rateLimitHeaderRefs = () => Object.fromEntries(RATE_HEADERS.map((h) => [h, { $ref: `#/components/headers/${h}` }]));

function errorResponse(description: string, udf: boolean, extraHeaders: Record<string, unknown> = {}) {
  return {
    description,
    headers: { ...rateLimitHeaderRefs(), ...extraHeaders },
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${udf ? 'UdfError' : 'Error'}` } } },
  };
}

function components() {
  const responses: Record<string, unknown> = {};
  const retryAfter = { 'Retry-After': { description: 'Seconds until one more request is allowed', schema: { type: 'integer', minimum: 1 } } };
  const wwwAuth = { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer realm="api"' } } };
  for (const udf of [false, true]) {
    const s = udf ? 'Udf' : '';
    responses[`BadRequest${s}`] = errorResponse('A parameter or body is malformed, out of range or repeated', udf);
    responses[`Unauthorized${s}`] = errorResponse('The presented key is unknown, revoked or expired (or a key is required)', udf, wwwAuth);
    responses[`Forbidden${s}`] = errorResponse('The key lacks the scope this route needs', udf);
    responses[`NotFound${s}`] = errorResponse('No such token, key or subscription', udf);
    responses[`RateLimited${s}`] = errorResponse('Over the rate limit; the request was not executed', udf, retryAfter);
  }
  responses.PayloadTooLarge = errorResponse('The body is too large', false);
  responses.UnsupportedMediaType = errorResponse('The body has an unsupported content type or encoding', false);

  const error = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'requestId'],
        properties: {
          code: { type: 'string', examples: ['invalid_parameter'] },
          message: { type: 'string', examples: ['limit must be an integer from 1 to 1000'] },
          param: { type: 'string', description: 'The parameter at fault, when there is one' },
          details: { type: 'array', items: { type: 'object', properties: { line: { type: 'integer' }, error: { type: 'string' } } } },
          requestId: { type: 'string' },
        },
      },
    },
  };
  return {
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer svc_live_...' },
      queryKey: { type: 'apiKey', in: 'query', name: 'key', description: 'Accepted on /udf/* only' },
    },
    headers: {
      'RateLimit-Limit': { description: 'Requests allowed per window', schema: { type: 'integer' } },
      'RateLimit-Remaining': { description: 'Whole requests left', schema: { type: 'integer', minimum: 0 } },
      'RateLimit-Reset': { description: 'Seconds until the bucket is full again', schema: { type: 'integer', minimum: 0 } },
      'RateLimit-Policy': { description: 'limit;w=window seconds', schema: { type: 'string', examples: ['300;w=60'] } },
    },
    schemas: {
      Error: error,
      UdfError: {
        type: 'object',
        required: ['s', 'errmsg', 'error'],
        properties: { s: { const: 'error' }, errmsg: { type: 'string' }, error: error.properties.error },
      },
    },
    responses,
  };
}

/** Tags in the order of the README's API sections; any other tag after them, by name. */
const TAG_ORDER: [string, string][] = [
  ['tokens', 'Token reads (public)'],
  ['market', 'Discovery, search, prices (public)'],
  ['udf', 'TradingView UDF datafeed (public, ?key= accepted)'],
  ['account', 'Authentication and keys (keyed)'],
  ['subscriptions', 'Subscriptions and events (keyed)'],
  ['ingest', 'Ingest (keyed, scope ingest)'],
];

function orderedTags(used: ReadonlySet<string>): { name: string; description?: string }[] {
  const known = TAG_ORDER.filter(([name]) => used.has(name)).map(([name, description]) => ({ name, description }));
  const rest = [...used].filter((name) => !TAG_ORDER.some(([n]) => n === name)).sort().map((name) => ({ name }));
  return [...known, ...rest];
}

/** The OpenAPI 3.1 document of the documented routes among `specs`. */
export function buildOpenApi(specs: readonly RouteSpec[], info: { version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const spec of specs.filter(documented)) {
    const p = (paths[openApiPath(spec.path)] ??= {});
    p[spec.method] = operation(spec);
    tags.add(spec.tag);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Token data service',
      version: info.version,
      description:
        'Market data of the tokens in the store: a TradingView UDF datafeed under /udf and a JSON API under /v1. ' +
        'Errors use one envelope; every answer carries RateLimit-* headers and X-Request-Id.',
    },
    servers: [{ url: '/' }],
    tags: orderedTags(tags),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: components(),
  };
}
