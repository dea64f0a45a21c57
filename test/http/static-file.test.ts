/**
 * Static files are compressed once, off the event loop, and served in the coding the client
 * prefers (br, gzip or identity), with Vary and an ETag per coding; no request compresses.
 */
import http from 'node:http';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VENDOR_FILES } from '../../src/http/pages.js';
import { staticFile } from '../../src/http/static-file.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

const URL_PATH = '/assets/vendor/lightweight-charts.js';
const source = readFileSync(VENDOR_FILES[URL_PATH]!);

let t: TestApp;
let server: http.Server;
let port: number;
beforeAll(async () => {
  t = makeTestApp();
  server = t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  t.close();
});

function get(path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('static files', () => {
  it('serves the precompressed brotli and gzip forms by Accept-Encoding, each with its own ETag', async () => {
    // The same content shares one compression per process: this waits for the app's too.
    const mine = staticFile(source, 'text/javascript; charset=utf-8', 'x');
    await mine.ready;
    expect([...mine.encoded.keys()].sort()).toEqual(['br', 'gzip']);

    const br = await get(URL_PATH, { 'Accept-Encoding': 'br, gzip, deflate' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.body.equals(mine.encoded.get('br')!)).toBe(true);
    expect(brotliDecompressSync(br.body).equals(source)).toBe(true);
    expect(br.body.length).toBeLessThan(source.length / 2);

    const gz = await get(URL_PATH, { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body.equals(mine.encoded.get('gzip')!)).toBe(true);
    expect(gunzipSync(gz.body).equals(source)).toBe(true);

    const plain = await get(URL_PATH, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(source)).toBe(true);

    const tags = new Set([br.headers.etag, gz.headers.etag, plain.headers.etag]);
    expect(tags.size).toBe(3);
    const again = await get(URL_PATH, { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag! });
    expect(again.status).toBe(304);
    const wrongCoding = await get(URL_PATH, { 'Accept-Encoding': 'gzip', 'If-None-Match': br.headers.etag! });
    expect(wrongCoding.status).toBe(200);
    expect(wrongCoding.headers['content-encoding']).toBe('gzip');
  });

  it('leaves small and binary files as they are', async () => {
    const small = staticFile(Buffer.from('body{}'), 'text/css; charset=utf-8', 'x');
    const png = staticFile(Buffer.alloc(4096, 1), 'image/png', 'x');
    await Promise.all([small.ready, png.ready]);
    expect(small.encoded.size).toBe(0);
    expect(png.encoded.size).toBe(0);
  });
});
