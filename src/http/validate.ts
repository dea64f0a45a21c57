/**
 * Query and path validation (docs/api.md, Conventions): one zod schema per route input. A repeated
 * parameter is an error (Koa turns it into an array), an empty value counts as absent, and
 * numbers are plain decimal integers only: never coerced, never clamped. Schemas carry the
 * predicate ("must be an integer from 1 to 1000"); the parameter's name is put in front here.
 * Each helper also carries its JSON Schema natively (pattern, enum, lengths, description), so
 * /openapi.json is zod's own z.toJSONSchema output of these very schemas.
 */
import { z } from 'zod';
import { normalizeAddress } from '../domain/address.js';
import { invalidAddress, invalidParameter } from '../errors.js';

const DECIMAL = /^(0|[1-9][0-9]*)$/;
/** What normalizeAddress admits: base58 of 32-44 characters, or 0x + 40 hex digits. */
export const ADDRESS_PATTERN = '^([1-9A-HJ-NP-Za-km-z]{32,44}|0x[0-9a-fA-F]{40})$';
export const ADDRESS_DESCRIPTION = 'An address: base58 (32-44 characters) or 0x + 40 hex digits (any case; read lower-cased)';

/**
 * An integer query parameter within [min, max], travelling as a decimal string: JSON Schema
 * cannot bound a number held in a string, so the range is in the description and in
 * `x-minimum` / `x-maximum`.
 */
export const intParam = (min: number, max: number) => {
  const message = `must be an integer from ${min} to ${max}`;
  return z
    .string()
    .regex(DECIMAL, message)
    .refine((v) => v.length <= 16 && Number(v) >= min && Number(v) <= max, { message })
    .transform(Number)
    .meta({ description: `An integer from ${min} to ${max}`, 'x-minimum': min, 'x-maximum': max });
};

/** The range of an intParam schema (read from its JSON Schema), or null for other schemas. */
export function intRange(schema: z.ZodType): [number, number] | null {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const min = json['x-minimum'];
  const max = json['x-maximum'];
  return typeof min === 'number' && typeof max === 'number' ? [min, max] : null;
}

/** One of a fixed list of values. */
export const enumParam = <const T extends readonly [string, ...string[]]>(values: T) =>
  z
    .enum(values as unknown as { [K in T[number]]: K }, { message: `must be one of ${values.join(', ')}` })
    .meta({ description: `One of ${values.join(', ')}` }) as unknown as z.ZodType<T[number], string>;

/** A well-formed address, in canonical form. */
export const addressParam = () =>
  z
    .string()
    .refine((v) => normalizeAddress(v) !== null, { message: 'must be a well-formed address' })
    .transform((v) => normalizeAddress(v)!)
    .meta({ description: ADDRESS_DESCRIPTION, pattern: ADDRESS_PATTERN });

/** The characters of `v` (code points: an emoji is one character, not two UTF-16 units), counting no further than `limit`. */
function characters(v: string, limit: number): number {
  let n = 0;
  for (const _ of v) if (++n > limit) break;
  return n;
}

/** A string of `min` to `max` characters (code points, as JSON Schema's minLength / maxLength count). */
export const textParam = (min: number, max: number) =>
  z
    .string()
    .refine(
      (v) => {
        const n = characters(v, max);
        return n >= min && n <= max;
      },
      { message: `must have ${min} to ${max} characters` },
    )
    .meta({ minLength: min, maxLength: max });

export type QueryShape = Record<string, z.ZodType<unknown, string>>;
export type QuerySchema = z.ZodObject<{ [k: string]: z.ZodType }>;

/**
 * Refuses a query parameter that `known` does not list: on /v1 a misspelt `from` must never
 * silently answer other data (docs/api.md, Conventions). /udf stays lenient and never calls this.
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
  // A missing value can only fail by being required, whatever code the schema gives it.
  const message = picked[name] === undefined ? 'is required' : issue.message;
  throw invalidParameter(name, `${name} ${message}`);
}

/** A path segment that must be an address: 400 invalid_address otherwise. */
export function pathAddress(value: string | undefined, param = 'address'): string {
  const a = value === undefined ? null : normalizeAddress(value);
  if (a === null) throw invalidAddress(param);
  return a;
}
