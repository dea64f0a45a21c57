/**
 * Query and path validation (docs/api.md, Conventions): one zod schema per route input. A repeated
 * parameter is an error (Koa turns it into an array), an empty value counts as absent, and
 * numbers are plain decimal integers only: never coerced, never clamped. Schemas carry the
 * predicate ("must be an integer from 1 to 1000"); the parameter's name is put in front here.
 * Each helper also carries its JSON Schema natively (pattern, enum, lengths, description), so
 * /openapi.json is zod's own z.toJSONSchema output of these very schemas.
 *
 * Each helper also registers a plain check of one value, doing what its schema does: a route
 * whose parameters all have one checks a valid query with those alone, and runs zod only when a
 * check fails, to build the same 400 it always gave (docs/architecture.md, Request flow).
 */
import { z } from 'zod';
import { normalizeAddress } from '../domain/address.js';
import { parseAddressKey, type Chains } from '../domain/chains.js';
import { errors, type ApiError } from '../errors.js';

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** A plain check's answer for a value its schema refuses. */
const FAIL: unique symbol = Symbol('invalid');
/** The value `v` as its schema would output it, or FAIL where the schema would fail. */
type Check = (v: string) => unknown;
/** The plain check of each helper's schema (the exact object the helper returns). */
const checks = new WeakMap<z.ZodType, Check>();

function withCheck<S extends z.ZodType>(schema: S, check: Check): S {
  checks.set(schema, check);
  return schema;
}
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
  const schema = z
    .string()
    .regex(DECIMAL, message)
    .refine((v) => v.length <= 16 && Number(v) >= min && Number(v) <= max, { message })
    .transform(Number)
    .meta({ description: `An integer from ${min} to ${max}`, 'x-minimum': min, 'x-maximum': max });
  return withCheck(schema, (v) => {
    if (v.length > 16 || !DECIMAL.test(v)) return FAIL;
    const n = Number(v);
    return n >= min && n <= max ? n : FAIL;
  });
};

/** The range of an intParam schema (read from its JSON Schema), or null for other schemas. */
export function intRange(schema: z.ZodType): [number, number] | null {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const min = json['x-minimum'];
  const max = json['x-maximum'];
  return typeof min === 'number' && typeof max === 'number' ? [min, max] : null;
}

/** One of a fixed list of values. */
export const enumParam = <const T extends readonly [string, ...string[]]>(values: T) => {
  const allowed = new Set<string>(values);
  const schema = z
    .enum(values as unknown as { [K in T[number]]: K }, { message: `must be one of ${values.join(', ')}` })
    .meta({ description: `One of ${values.join(', ')}` });
  return withCheck(schema, (v) => (allowed.has(v) ? v : FAIL)) as unknown as z.ZodType<T[number], string>;
};

/** A well-formed address, in canonical form. */
export const addressParam = () =>
  withCheck(
    z
      .string()
      .refine((v) => normalizeAddress(v) !== null, { message: 'must be a well-formed address' })
      .transform((v) => normalizeAddress(v)!)
      .meta({ description: ADDRESS_DESCRIPTION, pattern: ADDRESS_PATTERN }),
    (v) => normalizeAddress(v) ?? FAIL,
  );

/** The characters of `v` (code points: an emoji is one character, not two UTF-16 units), counting no further than `limit`. */
function characters(v: string, limit: number): number {
  let n = 0;
  for (const _ of v) if (++n > limit) break;
  return n;
}

/** A string of `min` to `max` characters (code points, as JSON Schema's minLength / maxLength count). */
export const textParam = (min: number, max: number) => {
  const fits = (v: string) => {
    const n = characters(v, max);
    return n >= min && n <= max;
  };
  const schema = z
    .string()
    .refine(fits, { message: `must have ${min} to ${max} characters` })
    .meta({ minLength: min, maxLength: max });
  return withCheck(schema, (v) => (fits(v) ? v : FAIL));
};

export type QueryShape = Record<string, z.ZodType<unknown, string>>;
/** A route's query or path parameters: a z.object of one schema per parameter. */
export type QuerySchema = z.ZodObject<{ [k: string]: z.ZodType }>;
/** The query or path parameters as Koa hands them over (a repeated query parameter is an array). */
export type RawParams = Record<string, string | string[] | undefined>;

/**
 * A path segment that must be an address: 400 invalid_address when it is not one (a query
 * parameter that must be an address is invalid_parameter, see addressParam). One lookup of
 * normalizeAddress per request, in the transform.
 */
export const addressPathParam = () =>
  withCheck(
    z
      .string()
      .transform((v, ctx) => {
        const a = normalizeAddress(v);
        if (a === null) ctx.addIssue({ code: 'custom', message: 'is not a well-formed address', params: { code: 'invalid_address' } });
        return a ?? z.NEVER;
      })
      .meta({ description: ADDRESS_DESCRIPTION, pattern: ADDRESS_PATTERN }),
    (v) => normalizeAddress(v) ?? FAIL,
  );

/** The JSON Schema of an address that may name its chain (`chain:address`, docs/chains.md). */
const CHAIN_ADDRESS_PATTERN = '^([a-z][a-z0-9-]{0,31}:)?([1-9A-HJ-NP-Za-km-z]{32,44}|0x[0-9a-fA-F]{40})$';
const chainAddressDescription = (chains: Chains) =>
  chains.list.length > 1
    ? `${ADDRESS_DESCRIPTION}; on the default chain (${chains.defaultChain}) the address alone, on any chain \`chain:address\` (chains: ${chains.list.join(', ')})`
    : ADDRESS_DESCRIPTION;

/**
 * What a value names as a store key (src/domain/chains.ts, parseAddressKey), or the issue to add:
 * a plain malformed address keeps the issue it always had (`plain`), one naming a chain (known or
 * not) is 400 invalid_address with the problem in its message.
 */
function addressKeyIssue(v: string, chains: Chains, plain: () => void, ctx: z.RefinementCtx): string | typeof z.NEVER {
  const key = parseAddressKey(v, chains);
  if (typeof key === 'string') return key;
  if (!v.includes(':')) plain();
  else ctx.addIssue({ code: 'custom', message: key.error, params: { code: 'invalid_address', problem: key.error } });
  return z.NEVER;
}

/** The plain check of both schemas below: the store key, or FAIL for either kind of issue. */
const keyCheck =
  (chains: Chains): Check =>
  (v) => {
    const key = parseAddressKey(v, chains);
    return typeof key === 'string' ? key : FAIL;
  };

/**
 * A path segment naming a token or market, as a store key (docs/chains.md, Naming a token or
 * market on a chain): the address on the default chain, `chain:address` on any. 400
 * invalid_address when malformed or on a chain the deployment does not serve; on one chain a
 * plain address is its own key, so answers are as before chains.
 */
export const addressKeyPathParam = (chains: Chains) =>
  withCheck(
    z
      .string()
      .transform((v, ctx) =>
        addressKeyIssue(v, chains, () => ctx.addIssue({ code: 'custom', message: 'is not a well-formed address', params: { code: 'invalid_address' } }), ctx),
      )
      .meta({ description: chainAddressDescription(chains), pattern: CHAIN_ADDRESS_PATTERN }),
    keyCheck(chains),
  );

/**
 * A query parameter naming a token or market (`market=`), as a store key: a malformed plain
 * address is 400 invalid_parameter as addressParam's; a bad `chain:address` is 400 invalid_address.
 */
export const addressKeyParam = (chains: Chains) =>
  withCheck(
    z
      .string()
      .transform((v, ctx) => addressKeyIssue(v, chains, () => ctx.addIssue({ code: 'custom', message: 'must be a well-formed address' }), ctx))
      .meta({ description: chainAddressDescription(chains), pattern: CHAIN_ADDRESS_PATTERN }),
    keyCheck(chains),
  );

/**
 * Refuses a query parameter that `known` does not hold: on /v1 a misspelt `from` must never
 * silently answer other data (docs/api.md, Conventions). /udf stays lenient and never calls this.
 */
export function rejectUnknownParams(known: ReadonlySet<string>, query: Record<string, unknown>): void {
  for (const name in query) {
    if (!known.has(name)) throw errors.invalidParameter(name, `${name} is not a parameter of this route`);
  }
}

/**
 * Where to find an address from what was given instead: a path that names a token by its symbol
 * (`/v1/token/BONK/overview`, the usual first try) is told about search, with that text.
 */
function searchHint(value: RawParams[string]): string {
  const text = typeof value === 'string' ? value.slice(0, 64) : '';
  return `routes take the token's or market's address; find it by symbol or name with GET /v1/search?q=${encodeURIComponent(text)}`;
}

/** The first issue of a failed parse as the parameter's 400, its name in front of the schema's predicate. */
function paramError(error: z.ZodError, input: RawParams): ApiError {
  const issue = error.issues[0]!;
  const name = String(issue.path[0] ?? 'query');
  if (issue.code === 'custom' && issue.params?.code === 'invalid_address') {
    // A chain-qualified address names its problem (an unknown chain, a malformed address on one).
    const problem: unknown = issue.params.problem;
    if (typeof problem === 'string') return errors.invalidChainAddress(name, problem);
    return errors.invalidAddress(name, searchHint(input[name]));
  }
  // A missing value can only fail by being required, whatever code the schema gives it.
  const value = input[name];
  const message = value === undefined || value === '' ? 'is required' : issue.message;
  return errors.invalidParameter(name, `${name} ${message}`);
}

/**
 * Compiles the parser of one route's query (or path) parameters, once per route: a repeated
 * parameter is 400, an empty value counts as absent, and unknown parameters are ignored here
 * (see rejectUnknownParams). Zod runs only when a parameter of the schema is present: the
 * answer for none is parsed once here (defaults applied) and shared, frozen, by every request.
 */
export function compileParams<S extends QuerySchema>(schema: S): (input: RawParams) => z.output<S> {
  const names = Object.keys(schema.shape);
  const empty = schema.safeParse({});
  const whenAbsent = empty.success ? (Object.freeze(empty.data) as z.output<S>) : null;
  const fast = compileChecks(schema);
  return (input) => {
    let present = false;
    let blank = false;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const value = input[name];
      if (value === undefined) continue;
      if (typeof value !== 'string') throw errors.invalidParameter(name, `${name} must be given once`);
      if (value === '') blank = true;
      else present = true;
    }
    if (!present && whenAbsent !== null) return whenAbsent;
    const picked = blank ? withoutBlanks(names, input) : input;
    if (fast !== null) {
      const out = fast(picked);
      if (out !== FAIL) return out as z.output<S>;
    }
    const parsed = schema.safeParse(picked);
    if (parsed.success) return parsed.data;
    throw paramError(parsed.error, picked);
  };
}

function withoutBlanks(names: readonly string[], input: RawParams): RawParams {
  const out: RawParams = {};
  for (const name of names) {
    const value = input[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

/** How a parameter's schema treats it when absent: required, left out, or a default input parsed like a value. */
type Field = { name: string; check: Check; absent: 'required' | 'optional' | { input: string } };

/**
 * The plain parse of a whole query, when every parameter's schema is a helper's (optionally
 * `.optional()` or `.prefault(...)`): the same output as zod's (keys in shape order, an absent
 * optional one left out), or FAIL for anything zod would refuse. Null when some parameter has no
 * plain check, or the object does more than pick its keys.
 */
function compileChecks(schema: QuerySchema): ((input: RawParams) => unknown) | null {
  const def = schema._zod.def as { catchall?: unknown; checks?: unknown[] };
  if (def.catchall !== undefined || (def.checks?.length ?? 0) > 0) return null;
  const fields: Field[] = [];
  for (const [name, field] of Object.entries(schema.shape)) {
    let inner = field as z.ZodType;
    let absent: Field['absent'] = 'required';
    for (;;) {
      const d = inner._zod.def as { type: string; innerType?: z.ZodType; defaultValue?: unknown };
      if (d.type === 'optional' && absent === 'required') absent = 'optional';
      else if (d.type === 'prefault' && absent === 'required' && typeof d.defaultValue === 'string') absent = { input: d.defaultValue };
      else break;
      inner = d.innerType!;
    }
    const check = checks.get(inner);
    if (check === undefined) return null;
    fields.push({ name, check, absent });
  }
  return (input) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const { name, check, absent } = fields[i]!;
      const value = input[name];
      let parsed: unknown;
      if (typeof value === 'string') parsed = check(value);
      else if (absent === 'required') return FAIL;
      else if (absent === 'optional') {
        // zod keeps a key given as undefined (never from a URL, but the same answer whatever the input).
        if (name in input) out[name] = undefined;
        continue;
      } else parsed = check(absent.input);
      if (parsed === FAIL) return FAIL;
      out[name] = parsed;
    }
    return out;
  };
}
