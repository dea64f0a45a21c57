/**
 * The Swagger UI bundle (1.7 MB) is compressed from the server's start, off the event loop, and
 * its first visitor after a start already gets it compressed (docs/api.md, Limits: static assets
 * are precompressed), never the whole bundle as it is. A real server process, asked at once.
 */
import { gunzipSync } from 'node:zlib';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type Child } from './support.js';

let server: Child;
beforeAll(async () => {
  server = await spawnServer({ DATABASE_PATH: ':memory:', DEMO_DATA: 'off' });
}, 60_000);
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exit;
});

/** One GET with its body as bytes. */
const get = (path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> =>
  new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: server.port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });

describe('the docs bundle after a start', () => {
  it('is compressed for its very first visitor', async () => {
    const res = await get('/assets/docs/swagger-ui-bundle.js', { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    const original = readFileSync('node_modules/swagger-ui-dist/swagger-ui-bundle.js');
    expect(res.body.length).toBeLessThan(original.length / 2);
    expect(gunzipSync(res.body).equals(original)).toBe(true);
  });

  it('is still answered whole to a client that takes no coding', async () => {
    const res = await get('/assets/docs/swagger-ui-bundle.js', { 'accept-encoding': 'identity' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.equals(readFileSync('node_modules/swagger-ui-dist/swagger-ui-bundle.js'))).toBe(true);
  });
});
