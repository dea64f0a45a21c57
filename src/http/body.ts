/**
 * JSON request bodies: read with raw-body (bounded), parsed, and validated with a zod schema.
 * Every failure is a 4xx in the envelope: 415 for a body that is not JSON (or not UTF-8, or
 * compressed), 413 over the route's limit, 400 invalid_body for bad JSON or a schema failure, with
 * `param` naming the field at fault. An empty body counts as `{}`.
 */
import getRawBody from 'raw-body';
import { z } from 'zod';
import { ApiError, errors } from '../errors.js';
import type { AppContext } from './types.js';
import { SCOPES } from '../services/accounts.js';

/** The largest request body of any route: ingest's (docs/api.md, Limits: 413 over 10 MB). */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * The limit of the small JSON bodies (keys, rotation, subscriptions): far above what they need,
 * and small enough that parsing the worst JSON that fits takes about a millisecond.
 */
export const SMALL_BODY_BYTES = 64 * 1024;

/** True when the request carries a body (a chunked one, or a Content-Length above 0). */
export function requestHasBody(ctx: AppContext): boolean {
  if (ctx.get('transfer-encoding') !== '') return true;
  const length = ctx.get('content-length');
  return length !== '' && !/^0+$/.test(length.trim());
}

const bad = (message: string, param?: string) => errors.invalidBody(message, { param });

/** 415 for a compressed body: bodies are read as sent, never inflated (a small body cannot become a large one). */
export function refuseContentEncoding(ctx: AppContext): void {
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') throw errors.unsupportedMediaType(`content encoding ${encoding} is not supported`);
}

/** 415 for a body declared in a charset other than UTF-8. */
export function refuseCharset(ctx: AppContext): void {
  const charset = ctx.request.charset.toLowerCase();
  if (charset !== '' && charset !== 'utf-8' && charset !== 'utf8') throw errors.unsupportedMediaType(`charset ${charset} is not supported; send UTF-8`);
}

/**
 * Reads the body as UTF-8 text ('' when the request has none), at most `limit` bytes: a declared
 * length over it is refused before anything is read, a chunked body as soon as it passes it, so
 * a connection never holds more than `limit` bytes of body.
 */
async function readText(ctx: AppContext, limit: number): Promise<string> {
  refuseContentEncoding(ctx);
  const type = ctx.request.is('application/json', '+json');
  if (type === null || ctx.request.length === 0) return ''; // no body at all
  const notJson = errors.unsupportedMediaType('the body must be JSON (Content-Type: application/json)');
  if (type === false && ctx.get('content-type') !== '') throw notJson;
  refuseCharset(ctx);
  let text: string;
  try {
    const length = ctx.get('content-length');
    if (length.length > 16 || Number(length) > limit) throw errors.payloadTooLarge(limit);
    text = await getRawBody(ctx.req, { limit, encoding: 'utf-8', ...(length !== '' ? { length } : {}) });
  } catch (err) {
    const e = err as { type?: string };
    if (err instanceof ApiError) throw err;
    if (e.type === 'entity.too.large') throw errors.payloadTooLarge(limit);
    throw bad('the request body could not be read');
  }
  // Without a Content-Type only an empty body is acceptable.
  if (type === false && text.trim() !== '') throw notJson;
  return text;
}

/** The message of a zod issue, with the field's name in front ("graceSeconds must be ..."). */
function describe(issue: z.core.$ZodIssue, input: unknown): ApiError {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const field = [path, issue.keys[0] ?? ''].filter(Boolean).join('.');
    return bad(`unknown field ${field}`, field);
  }
  if (path === '') return bad(`the body ${issue.message}`);
  let value: unknown = input;
  for (const p of issue.path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[p as PropertyKey] : undefined;
  const message = value === undefined ? 'is required' : issue.message;
  return bad(`${path} ${message}`, path);
}

/**
 * The request's JSON body, validated by `schema`. Give schema messages as predicates ("must be
 * an integer from 0 to 86400"): the field's name is put in front. Use z.strictObject to refuse
 * unknown fields (a misspelt option should not be silently ignored). `limit` defaults to
 * SMALL_BODY_BYTES (413 over it).
 */
export async function readJsonBody<S extends z.ZodType>(ctx: AppContext, schema: S, opts: { limit?: number } = {}): Promise<z.output<S>> {
  const text = await readText(ctx, opts.limit ?? SMALL_BODY_BYTES);
  let value: unknown = {};
  if (text.trim() !== '') {
    try {
      value = JSON.parse(text);
    } catch {
      throw bad('the body is not valid JSON');
    }
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw describe(parsed.error.issues[0]!, value);
}

/** A JSON body field: an integer within [min, max] (1.5, "10", true are refused). */
export const bodyInt = (min: number, max: number) =>
  z
    .unknown()
    .refine((v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max, {
      message: `must be an integer from ${min} to ${max}`,
    })
    .transform((v) => v as number)
    .meta({ type: 'integer', minimum: min, maximum: max });

const CONTROL = /[\u0000-\u001f\u007f]/;

/** A JSON body field: a string of min..max characters, and, with `noControl`, none of them a control character. */
const stringField = (min: number, max: number, noControl: boolean) =>
  z
    .unknown()
    .refine((v) => typeof v === 'string' && v.length >= min && v.length <= max && !(noControl && CONTROL.test(v)), {
      message: `must be a string of ${min} to ${max} characters${noControl ? ' without control characters' : ''}`,
    })
    .transform((v) => v as string)
    .meta({ type: 'string', minLength: min, maxLength: max, ...(noControl ? { pattern: '^[^\\u0000-\\u001f\\u007f]*$' } : {}) });

/** A JSON body field: a string of min..max characters. */
export const bodyString = (min: number, max: number) => stringField(min, max, false);

/**
 * A JSON body field looked up in the store: a string of min..max characters without control
 * characters (no stored name or email holds one, and PostgreSQL refuses a NUL in any text).
 */
export const bodyText = (min: number, max: number) => stringField(min, max, true);

/** A JSON object schema with a clear message when the body is some other JSON value. */
export const bodyObject = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, { error: (iss) => (iss.code === 'invalid_type' ? 'must be a JSON object' : undefined) });

/**
 * A JSON body field: a non-empty array of known scope names. Which of them a caller may grant is
 * the accounts service's decision (403), not a validation error.
 */
export const bodyScopes = () =>
  z
    .unknown()
    .refine(
      (v) =>
        Array.isArray(v) && v.length >= 1 && v.length <= SCOPES.length && v.every((s) => typeof s === 'string' && (SCOPES as readonly string[]).includes(s)),
      { message: `must be a non-empty array of scopes (${SCOPES.join(', ')})` },
    )
    .transform((v) => v as string[])
    .meta({ type: 'array', items: { type: 'string', enum: [...SCOPES] }, minItems: 1, maxItems: SCOPES.length, uniqueItems: false });
