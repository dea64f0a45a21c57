/**
 * A request's query as Koa's `ctx.query` gives it (URLSearchParams' reading; a repeated name
 * becomes an array of its values in order), parsed in one pass: Koa asks URLSearchParams for
 * every value of every name again and defines each property, which cost more than the route's
 * whole validation (docs/operations.md, Benchmark). The answer goes into Koa's own per-request
 * cache, so `ctx.query` read later is this same object.
 */
import type { AppContext } from './types.js';
import type { RawParams } from './validate.js';

/** The parsed query of `ctx` (the same object as `ctx.query`). */
export function queryOf(ctx: AppContext): RawParams {
  const request = ctx.request as unknown as { _querycache?: Record<string, RawParams> };
  const str = ctx.querystring;
  const cache = (request._querycache ??= Object.create(null) as Record<string, RawParams>);
  return (cache[str] ??= parseQuery(str));
}

/** `str` read as URLSearchParams reads it, into Koa's shape. */
export function parseQuery(str: string): RawParams {
  const out: Record<string, string | string[]> = {};
  if (str === '') return out;
  for (const [name, value] of new URLSearchParams(str)) {
    if (!Object.hasOwn(out, name)) {
      // A name such as `__proto__` is an own property, as Koa defines it, never the prototype.
      if (name === '__proto__') Object.defineProperty(out, name, { value, writable: true, enumerable: true, configurable: true });
      else out[name] = value;
      continue;
    }
    const had = out[name]!;
    if (Array.isArray(had)) had.push(value);
    else out[name] = [had, value];
  }
  return out;
}
