/**
 * Cached JSON answers go out compressed from forms made once (src/read/prepared-json.ts): the
 * coding the client accepts, an ETag per coding, 304 only for the bytes the client holds, and the
 * compressed forms counted in the cache's byte bound.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request as httpRequest, type Server } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { addToken, addTrades } from '../udf/support.js';

let t: TestApp;
let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
  t?.close();
});

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A GET on a real socket, the body left as sent (supertest would decode it). */
async function rawGet(path: string, headers: Record<string, string>): Promise<Raw> {
  server ??= await new Promise<Server>((resolve) => {
    const s = t.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A token with 300 one-minute bars: its countback-300 history is some 10 KB of JSON. */
function chartPath(): string {
  const tok = addToken(t, { symbol: 'BIG' });
  addTrades(
    t,
    tok.address,
    Array.from({ length: 300 }, (_, i) => [1_699_980_000 + 60 * i, 1 + i / 1000] as const),
  );
  return `/udf/history?symbol=${tok.address}&resolution=1&to=1700000000&countback=300&currencyCode=USD`;
}

describe('cached answers served compressed', () => {
  it('sends brotli to a browser, gzip to a gzip-only client, and the same JSON to all', async () => {
    t = makeTestApp();
    const path = chartPath();
    const plain = await rawGet(path, { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const json = JSON.parse(plain.body.toString('utf8'));
    expect(json.t).toHaveLength(300);
    const br = await rawGet(path, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/);
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toEqual(json);
    const gz = await rawGet(path, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.body).toString('utf8'))).toEqual(json);
    const refusesBr = await rawGet(path, { 'accept-encoding': 'br;q=0, *' });
    expect(refusesBr.headers['content-encoding']).toBe('gzip');
    const deflateOnly = await rawGet(path, { 'accept-encoding': 'deflate' });
    expect(deflateOnly.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(deflateOnly.body.toString('utf8'))).toEqual(json);
    // The second request of a coding gets the very bytes of the first.
    expect((await rawGet(path, { 'accept-encoding': 'br' })).body.equals(br.body)).toBe(true);
  });

  it('gives each coding its own ETag and answers 304 only for the bytes the client holds', async () => {
    t = makeTestApp();
    const path = chartPath();
    const plain = await rawGet(path, {});
    const br = await rawGet(path, { 'accept-encoding': 'br' });
    const gz = await rawGet(path, { 'accept-encoding': 'gzip' });
    const tags = [plain.headers.etag, br.headers.etag, gz.headers.etag];
    expect(new Set(tags).size).toBe(3);
    expect((await rawGet(path, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) })).status).toBe(304);
    expect((await rawGet(path, { 'accept-encoding': 'gzip', 'if-none-match': String(gz.headers.etag) })).status).toBe(304);
    expect((await rawGet(path, { 'if-none-match': String(plain.headers.etag) })).status).toBe(304);
    const stale = await rawGet(path, { 'accept-encoding': 'br', 'if-none-match': String(gz.headers.etag) });
    expect(stale.status).toBe(200);
    expect(stale.headers['content-encoding']).toBe('br');
  });

  it('counts the compressed forms in the cache bound, once each', async () => {
    t = makeTestApp();
    const path = chartPath();
    await rawGet(path, {});
    const before = t.app.deps.cache.usage().bytes;
    const br = await rawGet(path, { 'accept-encoding': 'br' });
    const afterBr = t.app.deps.cache.usage().bytes;
    expect(afterBr - before).toBe(br.body.length + 64);
    await rawGet(path, { 'accept-encoding': 'br' });
    expect(t.app.deps.cache.usage().bytes).toBe(afterBr);
  });

  it('drops the compressed forms with the answer when the token trades', async () => {
    t = makeTestApp();
    const path = chartPath();
    const first = await rawGet(path, { 'accept-encoding': 'br' });
    const tok = new URL(path, 'http://x').searchParams.get('symbol')!;
    addTrades(t, tok, [[1_699_999_990, 5]]);
    const next = await rawGet(path, { 'accept-encoding': 'br' });
    expect(next.headers.etag).not.toBe(first.headers.etag);
    expect(JSON.parse(brotliDecompressSync(next.body).toString('utf8')).c.at(-1)).toBe(5);
  });
});
