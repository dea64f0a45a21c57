/**
 * The OpenAPI 3.1 document of every /v1 and /udf route, built from the same route specs that
 * validate requests and type answers: parameters, bodies and 2xx answers are zod's own
 * z.toJSONSchema output of the route's schemas (the query helpers of validate.ts carry their
 * pattern, enum, lengths, defaults and descriptions), so the document cannot drift from what is
 * checked and answered (docs/api.md, Operations).
 */
import { z } from 'zod';
import { apiErrorSchema, udfErrorSchema } from './error-schemas.js';
import { pathParams, type RouteSpec } from './route.js';

type JsonSchema = Record<string, unknown>;

/** Routes the document describes: the public API, not pages, operations or the dashboard. */
export const documented = (spec: RouteSpec): boolean => (spec.path.startsWith('/v1/') || spec.path.startsWith('/udf/')) && spec.upgrade === undefined;

/** `/v1/token/:address/trades` -> `/v1/token/{address}/trades` */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

/** zod's JSON Schema of `schema`, as the request carries it (`input`) or the answer is (`output`). */
function toJson(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  return json;
}

type Parameter = { name: string; in: 'query' | 'path'; required: boolean; description?: string; schema: JsonSchema };

/** One parameter of `schema`'s JSON Schema, its description lifted out as OpenAPI wants it. */
function parameter(name: string, where: 'query' | 'path', required: boolean, field: JsonSchema): Parameter {
  const { description, ...schema } = field;
  return { name, in: where, required, ...(typeof description === 'string' ? { description } : {}), schema };
}

function parameters(spec: RouteSpec): Parameter[] {
  // Path parameters in the order of the path, each from the route's own params schema.
  const path = spec.params ? ((toJson(spec.params, 'input').properties ?? {}) as Record<string, JsonSchema>) : {};
  const params = pathParams(spec.path).map((name) => parameter(name, 'path', true, path[name] ?? { type: 'string' }));
  if (!spec.query) return params;
  // The query object's own schema says which parameters are required.
  const json = toJson(spec.query, 'input');
  const required = new Set((json.required as string[] | undefined) ?? []);
  for (const [name, field] of Object.entries((json.properties ?? {}) as Record<string, JsonSchema>))
    params.push(parameter(name, 'query', required.has(name), field));
  return params;
}

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** The 2xx answers of a route: its response schema and example under each success status. */
function successes(spec: RouteSpec): Record<string, unknown> {
  const type = spec.responseType ?? 'application/json';
  const content = spec.response
    ? { [type]: { schema: toJson(spec.response, 'output'), ...(spec.example !== undefined ? { example: spec.example } : {}) } }
    : undefined;
  const out: Record<string, unknown> = {};
  for (const status of spec.statuses ?? [200]) {
    out[String(status)] = {
      description: status === 201 ? 'Created' : 'OK',
      headers: rateLimitHeaderRefs(),
      ...(content ? { content } : {}),
    };
  }
  if (spec.method === 'get') out['304'] = { description: 'Not modified (If-None-Match matched the ETag)' };
  return out;
}

function operation(spec: RouteSpec) {
  const udf = spec.path.startsWith('/udf/');
  const params = parameters(spec);
  const keyed = spec.access === 'key';
  const responses = successes(spec);
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
    // Public routes need no key (no padlock in /docs); a key, when sent, only picks the rate-limit bucket.
    security: keyed ? [{ apiKey: [] }, { bearer: [] }] : [],
    parameters: params,
    responses,
  };
  op.description = keyed
    ? `Needs a key${spec.scope ? ` with scope \`${spec.scope}\`` : ''}.`
    : `Public: no key needed. A key, when sent (x-api-key, Authorization: Bearer${udf ? ', or ?key=' : ''}), counts the request against its tenant's rate limit.`;
  if (spec.body) {
    const json = toJson(spec.body, 'input');
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

  return {
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer svc_live_...' },
    },
    headers: {
      'RateLimit-Limit': { description: 'Requests allowed per window', schema: { type: 'integer' } },
      'RateLimit-Remaining': { description: 'Whole requests left', schema: { type: 'integer', minimum: 0 } },
      'RateLimit-Reset': { description: 'Seconds until the bucket is full again', schema: { type: 'integer', minimum: 0 } },
      'RateLimit-Policy': { description: 'limit;w=window seconds', schema: { type: 'string', examples: ['300;w=60'] } },
    },
    schemas: { Error: toJson(apiErrorSchema, 'output'), UdfError: toJson(udfErrorSchema, 'output') },
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
  const rest = [...used]
    .filter((name) => !TAG_ORDER.some(([n]) => n === name))
    .sort()
    .map((name) => ({ name }));
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
        'Errors use one envelope; every answer carries RateLimit-* headers and X-Request-Id. ' +
        'Live data comes over the WebSocket GET /v1/stream, which OpenAPI cannot describe (see the docs/api.md, Live stream). ' +
        'Public routes need no key; on /udf a key may also come as ?key= (the TradingView adapter cannot send headers).',
    },
    servers: [{ url: '/' }],
    tags: orderedTags(tags),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: components(),
  };
}
