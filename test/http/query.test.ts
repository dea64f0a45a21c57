/**
 * parseQuery (src/http/query.ts) reads a query string exactly as Koa's own `ctx.query` does, for
 * any string: the same names in the same order, a repeated name as the array of its values, and
 * names such as `__proto__` as own properties. The reference is Koa itself, on a context of a real
 * request object.
 */
import fc from 'fast-check';
import Koa from 'koa';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/http/query.js';

const app = new Koa();

/** Koa's query string of a request for `/x?<str>`, and Koa's own parse of it. */
function koaQuery(str: string): { querystring: string; query: unknown } {
  const req = new IncomingMessage(new Socket());
  req.url = `/x?${str}`;
  req.method = 'GET';
  const ctx = app.createContext(req, new ServerResponse(req));
  return { querystring: ctx.querystring, query: ctx.query };
}

const part = fc.oneof(
  fc.constantFrom(
    'a',
    'b',
    'key',
    '__proto__',
    'constructor',
    'toString',
    '',
    '%',
    '%2',
    '%41',
    '+',
    '%E2%82%AC',
    '%ZZ',
    '=',
    '&',
    ';',
    '😀',
    '\uD800',
    '?',
    '?a',
    'é',
    'to',
    '1750000000',
  ),
  fc.string({ maxLength: 4 }),
);
const queryString = fc.array(fc.tuple(part, fc.option(part)), { maxLength: 8 }).map((pairs) => pairs.map(([k, v]) => (v === null ? k : `${k}=${v}`)).join('&'));

describe('parseQuery', () => {
  it("reads any query string as Koa's ctx.query does", () => {
    fc.assert(
      fc.property(fc.oneof(queryString, fc.string({ maxLength: 30 })), (str) => {
        const { querystring, query } = koaQuery(str);
        const ours = parseQuery(querystring);
        const koa = query as Record<string, unknown>;
        expect(Object.keys(ours)).toEqual(Object.keys(koa));
        expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(koa));
        for (const name of Object.keys(koa)) expect(Object.getOwnPropertyDescriptor(ours, name)?.value).toEqual(koa[name]);
      }),
      { numRuns: 3000 },
    );
  });

  it('gives a repeated name all its values in order, and decodes as URLSearchParams does', () => {
    expect(parseQuery('a=1&b=x+y&a=2&a=%41')).toEqual({ a: ['1', '2', 'A'], b: 'x y' });
    expect(parseQuery('')).toEqual({});
  });

  it('splits a plain string as URLSearchParams does: empty parts skipped, the value after the first =', () => {
    expect(parseQuery('a=b=c&&=x&y&')).toEqual({ a: 'b=c', '': 'x', y: '' });
    expect(parseQuery('?a=1')).toEqual({ a: '1' });
    expect(parseQuery('a=?&b')).toEqual({ a: '?', b: '' });
  });
});
