/**
 * A request's query as Koa's `ctx.query` gives it (URLSearchParams' reading; a repeated name
 * becomes an array of its values in order), parsed in one pass: Koa asks URLSearchParams for
 * every value of every name again and defines each property, which cost more than the route's
 * whole validation (docs/operations.md, Benchmark). The router reads it once per request, so it
 * is not put in Koa's own cache, keyed by the whole query string: hashing a long string there
 * cost as much as the parse. One Koa already made (`ctx.query` read before) is used as it is.
 */
import type { AppContext } from './types.js';
import type { RawParams } from './validate.js';

/** The parsed query of `ctx` (the same answer as `ctx.query`). */
export function queryOf(ctx: AppContext): RawParams {
  const request = ctx.request as unknown as { querystring: string; _querycache?: Record<string, RawParams> };
  const str = request.querystring;
  return request._querycache?.[str] ?? parseQuery(str);
}

/**
 * What URLSearchParams would change in a query string: a percent sign or a plus (decoded), a
 * character outside ASCII (its UTF-8 bytes are decoded again, so a lone surrogate becomes U+FFFD),
 * or a leading `?` (dropped). A string without any is split as it is.
 */
const DECODED = /[%+\u0080-\uffff]/;

/** `str` read as URLSearchParams reads it, into Koa's shape. */
export function parseQuery(str: string): RawParams {
  const out: Record<string, string | string[]> = {};
  if (str === '') return out;
  if (str.charCodeAt(0) === 0x3f || DECODED.test(str)) {
    for (const [name, value] of new URLSearchParams(str)) add(out, name, value);
    return out;
  }
  // The form-urlencoded split itself (WHATWG URL, application/x-www-form-urlencoded parsing):
  // sequences between '&', empty ones skipped, the name before the first '=', the value after it.
  // Adapters' polls take this path: it allocates the names and values and nothing else.
  let start = 0;
  while (start < str.length) {
    let end = str.indexOf('&', start);
    if (end === -1) end = str.length;
    if (end > start) {
      const part = str.slice(start, end);
      const eq = part.indexOf('=');
      if (eq === -1) add(out, part, '');
      else add(out, part.slice(0, eq), part.slice(eq + 1));
    }
    start = end + 1;
  }
  return out;
}

function add(out: Record<string, string | string[]>, name: string, value: string): void {
  if (!Object.hasOwn(out, name)) {
    // A name such as `__proto__` is an own property, as Koa defines it, never the prototype.
    if (name === '__proto__') Object.defineProperty(out, name, { value, writable: true, enumerable: true, configurable: true });
    else out[name] = value;
    return;
  }
  const had = out[name]!;
  if (Array.isArray(had)) had.push(value);
  else out[name] = [had, value];
}
