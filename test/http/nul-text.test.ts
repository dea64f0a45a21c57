/**
 * A text holding a NUL in a symbol, a search or an exchange: no stored symbol, name, address or
 * dex holds one (ingest refuses control characters), so it names and finds nothing, the same on
 * both engines (src/store/sqlite/symbols-repo.ts, holdsNul): never a 500 (PostgreSQL refuses a NUL in a
 * text parameter), and never the hit SQLite's LIKE would find by reading the text up to the NUL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken } from '../helpers/builders.js';

let t: TestApp;
afterEach(() => t?.close());

const UNKNOWN = { s: 'error', errmsg: 'unknown symbol' };

describe('a text holding a NUL', () => {
  it('names no token in /udf/symbols, /udf/history and /udf/quotes', async () => {
    t = makeTestApp();
    const a = aToken({ symbol: 'AB', name: 'Alpha Beta' });
    await t.ingest([a, aMarket(a.address)]);
    expect((await t.http.get('/udf/symbols').query({ symbol: 'AB' })).status).toBe(200);
    for (const symbol of ['\u0000', 'AB\u0000', `${a.address}\u0000`, 'raydium:AB\u0000', 'ray\u0000dium:AB', `x\u0000:${a.address}`]) {
      const res = await t.http.get('/udf/symbols').query({ symbol });
      expect(res.status, JSON.stringify(symbol)).toBe(404);
      expect(res.body).toMatchObject(UNKNOWN);
      const history = await t.http.get('/udf/history').query({ symbol, resolution: '60', from: 1_697_408_000, to: 1_700_000_000 });
      expect(history.status).toBe(404);
      expect(history.body).toMatchObject(UNKNOWN);
      const quotes = await t.http.get('/udf/quotes').query({ symbols: symbol });
      expect(quotes.status).toBe(200);
      expect(quotes.body).toEqual({ s: 'ok', d: [{ s: 'error', n: symbol, errmsg: 'unknown symbol', v: {} }] });
    }
  });

  it('finds nothing in /udf/search (query or exchange) and /v1/search, where the text before the NUL would', async () => {
    t = makeTestApp();
    const a = aToken({ symbol: 'AB', name: 'Alpha Beta' });
    await t.ingest([a, aToken({ symbol: 'A', name: 'A' }), aMarket(a.address)]);
    const udf = async (query: string, exchange?: string) =>
      (await t.http.get('/udf/search').query({ query, type: 'crypto', limit: 10, ...(exchange === undefined ? {} : { exchange }) })).body as {
        symbol: string;
      }[];
    expect((await udf('AB')).map((x) => x.symbol)).toEqual(['AB']);
    expect((await udf('A')).map((x) => x.symbol)).toEqual(['A', 'AB']);
    for (const query of ['\u0000', 'A\u0000', 'AB\u0000x', 'a\u0000b', `${a.address}\u0000`]) expect(await udf(query), JSON.stringify(query)).toEqual([]);
    expect(await udf('A', 'raydium\u0000')).toEqual([]);
    for (const q of ['\u0000', 'A\u0000', 'AB\u0000', 'Alpha\u0000', `${a.address}\u0000`]) {
      const res = await t.http.get('/v1/search').query({ q, limit: 10 });
      expect(res.status, JSON.stringify(q)).toBe(200);
      expect(res.body).toEqual({ results: [] });
    }
  });
});
