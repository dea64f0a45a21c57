/**
 * What the hot path keeps from memory must still change exactly when the store does: resolved
 * symbol names (src/read/resolve-cache.ts), and small answers skip compression but keep Vary.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket } from '../helpers/builders.js';
import { addToken, addTrades } from '../udf/support.js';

let t: TestApp;
afterEach(() => t?.close());

const symbols = (symbol: string) => t.http.get('/udf/symbols').query({ symbol });

describe('resolved symbol names kept in memory', () => {
  it('follow a symbol to the token that became the most liquid a moment ago', async () => {
    t = makeTestApp();
    const a = addToken(t, { symbol: 'TWIN', name: 'First' }, { raydium: 100 });
    const b = addToken(t, { symbol: 'TWIN', name: 'Second' }, { raydium: 50 });
    expect((await symbols('TWIN')).body.ticker).toBe(a.address);
    expect((await symbols('TWIN')).body.ticker).toBe(a.address);
    t.ingest([aMarket(b.address, { dex: 'orca', liquidityUsd: 1000 })]);
    expect((await symbols('TWIN')).body.ticker).toBe(b.address);
    expect((await symbols('raydium:twin')).body.ticker).toBe(b.address);
  });

  it("show a token's new row by address after its own change, and keep it through another's", async () => {
    t = makeTestApp();
    const a = addToken(t, { symbol: 'AAA', name: 'Alpha' });
    const other = addToken(t, { symbol: 'BBB', name: 'Beta' });
    expect((await symbols(a.address)).body.description).toBe('Alpha');
    t.ingest([{ ...a, name: 'Alpha Renamed' }]);
    expect((await symbols(a.address)).body.description).toBe('Alpha Renamed');
    addTrades(t, other.address, [[1_699_990_000, 2]]);
    expect((await symbols(a.address)).body.description).toBe('Alpha Renamed');
    expect((await symbols(other.address)).body.description).toBe('Beta');
  });

  it('answers 404 for an unknown name, and the token once it is added', async () => {
    t = makeTestApp();
    expect((await symbols('LATE')).status).toBe(404);
    const late = addToken(t, { symbol: 'LATE' });
    const res = await symbols('LATE');
    expect(res.status).toBe(200);
    expect(res.body.ticker).toBe(late.address);
  });

  it('serves history for the token a symbol names now, not the one it named before', async () => {
    t = makeTestApp();
    const a = addToken(t, { symbol: 'SAME' }, { raydium: 100 });
    addTrades(t, a.address, [[1_699_990_000, 1]]);
    const history = () => t.http.get('/udf/history').query({ symbol: 'SAME', resolution: '1', to: 1_700_000_000, countback: 5 });
    expect((await history()).body).toMatchObject({ s: 'ok', c: [1] });
    const b = addToken(t, { symbol: 'SAME' }, { raydium: 1000 });
    addTrades(t, b.address, [[1_699_990_000, 7]]);
    expect((await history()).body).toMatchObject({ s: 'ok', c: [7] });
  });
});

describe('compression of small answers', () => {
  it('sends an answer under 1 KB as it is, with Vary: Accept-Encoding', async () => {
    t = makeTestApp();
    const res = await t.http.get('/healthz').set('Accept-Encoding', 'gzip, deflate, br');
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toMatch(/Accept-Encoding/);
  });
});

describe('callers without a key skip the key checks', () => {
  it('still read a key given only in the query, even with its name percent-encoded', async () => {
    t = makeTestApp();
    const token = addToken(t, { symbol: 'KEYQ' });
    const { secret } = t.makeKey({ plan: 'enterprise' });
    const anon = await t.http.get('/udf/symbols').query({ symbol: token.address });
    expect(anon.status).toBe(200);
    const keyed = await t.http.get(`/udf/symbols?symbol=${token.address}&%6Bey=${secret}`);
    expect(keyed.status).toBe(200);
    expect(Number(keyed.headers['ratelimit-limit'])).toBeGreaterThan(Number(anon.headers['ratelimit-limit']));
    const bad = await t.http.get(`/udf/symbols?symbol=${token.address}&%6Bey=svc_live_nope`);
    expect(bad.status).toBe(401);
    expect(bad.body.s).toBe('error');
  });

  it('are one bucket per address however the address is written', async () => {
    t = makeTestApp({ env: { TRUST_PROXY: '1', RATE_LIMIT_ANON: '3/60' } });
    const ask = (ip: string) => t.http.get('/udf/time').set('X-Forwarded-For', ip);
    expect((await ask('203.0.113.9')).status).toBe(200);
    expect((await ask('::ffff:203.0.113.9')).status).toBe(200);
    expect((await ask('203.0.113.9')).headers['ratelimit-remaining']).toBe('0');
    expect((await ask('::ffff:cb00:7109')).status).toBe(429);
    expect((await ask('203.0.113.10')).status).toBe(200);
  });
});

describe('cached history answers found from memory', () => {
  it('are the bytes and headers of the first answer in each coding, and show a new trade at once', async () => {
    t = makeTestApp();
    const token = addToken(t, { symbol: 'FAST' });
    addTrades(t, token.address, [
      [1_699_999_000, 1],
      [1_699_999_100, 2],
    ]);
    const poll = (encoding: string) =>
      t.http
        .get('/udf/history')
        .query({ symbol: token.address, resolution: '1', from: 1_699_998_000, to: 1_700_000_000, countback: 2, currencyCode: 'USD' })
        .set('Accept-Encoding', encoding);
    for (const encoding of ['gzip, deflate, br', 'identity']) {
      const first = await poll(encoding);
      const again = await poll(encoding);
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      for (const h of ['etag', 'content-type', 'content-length', 'vary', 'access-control-expose-headers', 'ratelimit-policy'])
        expect(again.headers[h]).toBe(first.headers[h]);
      expect(again.body.c).toEqual([1, 2]);
    }
    addTrades(t, token.address, [[1_699_999_200, 3]]);
    const after = await poll('identity');
    expect(after.body.c).toEqual([2, 3]);
    expect((await poll('identity')).body.c).toEqual([2, 3]);
  });
});
