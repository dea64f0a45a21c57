/**
 * Query and path validation (DESIGN.md section 4): one zod schema per route input. A repeated
 * parameter is an error (Koa turns it into an array), an empty value counts as absent, and
 * numbers are plain decimal integers only: never coerced, never clamped. Schemas carry the
 * predicate ("must be an integer from 1 to 1000"); the parameter's name is put in front here.
 */
import { z } from 'zod';
import { normalizeAddress } from '../domain/address.js';
import { invalidAddress, invalidParameter } from '../errors.js';

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** An integer query parameter within [min, max]. */
export const intParam = (min: number, max: number) =>
  z
    .string()
    .refine((v) => DECIMAL.test(v) && v.length <= 16 && Number(v) >= min && Number(v) <= max, {
      message: `must be an integer from ${min} to ${max}`,
    })
    .transform(Number);

/** One of a fixed list of values. */
export const enumParam = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.string().refine((v): v is T[number] => (values as readonly string[]).includes(v), {
    message: `must be one of ${values.join(', ')}`,
  }) as unknown as z.ZodType<T[number], string>;

/** A well-formed address, in canonical form. */
export const addressParam = () =>
  z.string().refine((v) => normalizeAddress(v) !== null, { message: 'must be a well-formed address' }).transform((v) => normalizeAddress(v)!);

/** The characters of `v` (code points: an emoji is one character, not two UTF-16 units), counting no further than `limit`. */
function characters(v: string, limit: number): number {
  let n = 0;
  for (const _ of v) if (++n > limit) break;
  return n;
}

/** A string of `min` to `max` characters. */
export const textParam = (min: number, max: number) =>
  z.string().refine((v) => {
    const n = characters(v, max);
    return n >= min && n <= max;
  }, { message: `must have ${min} to ${max} characters` });

export type QueryShape = Record<string, z.ZodType<unknown, string>>;
export type QuerySchema = z.ZodObject<{ [k: string]: z.ZodType }>;

/**
 * Refuses a query parameter that `known` does not list: on /v1 a misspelt `from` must never
 * silently answer other data (README, Conventions). /udf stays lenient and never calls this.
 */
export function rejectUnknownParams(known: readonly string[], query: Record<string, unknown>): void {
  for (const name of Object.keys(query)) {
    if (!known.includes(name)) throw invalidParameter(name, `${name} is not a parameter of this route`);
  }
}

/**
 * Validates `query` against `schema` (a z.object of the parameters; wrap optional ones in
 * `.optional()`). Unknown parameters are ignored here; see rejectUnknownParams.
 */
export function parseQuery<S extends QuerySchema>(schema: S, query: Record<string, string | string[] | undefined>): z.output<S> {
  const picked: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = query[name];
    if (Array.isArray(value)) throw invalidParameter(name, `${name} must be given once`);
    if (value !== undefined && value !== '') picked[name] = value;
  }
  const parsed = schema.safeParse(picked);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name = String(issue.path[0] ?? 'query');
  const message = issue.code === 'invalid_type' && picked[name] === undefined ? 'is required' : issue.message;
  throw invalidParameter(name, `${name} ${message}`);
}

/** A path segment that must be an address: 400 invalid_address otherwise. */
export function pathAddress(value: string | undefined, param = 'address'): string {
  const a = value === undefined ? null : normalizeAddress(value);
  if (a === null) throw invalidAddress(param);
  return a;
}
