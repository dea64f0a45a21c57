/**
 * Methods the router serves on no route at all (TRACE, PROPFIND, MKCOL, SEARCH, ...): 405 in the
 * envelope with an Allow header listing what the path does serve, never Koa's plain-text 501.
 * Sent over a real socket, since some clients cannot send these methods.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

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

function send(method: string, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('methods no route serves', () => {
  it.each([
    ['TRACE', '/healthz', 'HEAD, GET'],
    ['PROPFIND', '/v1/search?q=a', 'HEAD, GET'],
    ['MKCOL', '/', 'HEAD, GET'],
    ['SEARCH', '/udf/time', 'HEAD, GET'],
    ['PROPPATCH', '/v1/keys', 'HEAD, GET, POST'],
  ])('answers %s %s with 405 in the envelope and Allow: %s', async (method, path, allow) => {
    const res = await send(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe('method_not_allowed');
    expect(body.error.message).toBe(`${method} is not allowed here`);
    // Counted and labelled like any answer.
    expect(res.headers['ratelimit-limit']).toBe('300');
  });

  it('keeps the UDF form on /udf', async () => {
    const res = await send('TRACE', '/udf/config');
    expect(res.status).toBe(405);
    expect(JSON.parse(res.body)).toMatchObject({ s: 'error', errmsg: 'TRACE is not allowed here', error: { code: 'method_not_allowed' } });
  });

  it('answers a served-nowhere method on an unknown path with 405 too (empty Allow: nothing is served there)', async () => {
    const res = await send('TRACE', '/no/such/path');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('');
    expect(JSON.parse(res.body).error.code).toBe('method_not_allowed');
  });
});
