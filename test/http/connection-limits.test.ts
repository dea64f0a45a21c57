/**
 * What a hostile client meets on a real socket (docs/api.md, Limits), against the real server from
 * start() with short timeouts injected (the defaults are 30 s, 10 s and 5 s): half-sent and
 * oversized bodies are refused or cut without being read, slow headers and bodies are answered
 * 408 and closed, idle keep-alive connections are closed, and one IP's connections are capped.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Running } from '../../src/server.js';
import { systemClock } from '../../src/domain/clock.js';

const CAP = 6;
let running: Running;
let port: number;
let manageKey: string;

beforeAll(async () => {
  running = await start(
    { PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: ':memory:', DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'silent', MAX_CONNECTIONS_PER_IP: String(CAP) },
    systemClock,
    { limits: { requestTimeoutMs: 800, headersTimeoutMs: 400, keepAliveTimeoutMs: 300, checkEveryMs: 50 } },
  );
  port = (running.server.address() as { port: number }).port;
  const accounts = running.services.accounts;
  const tenant = await accounts.createTenant({ name: 'T', plan: 'pro', email: 'owner@example.com' });
  manageKey = (await accounts.createKey(tenant.id, { scopes: ['read', 'manage'] })).secret;
});
afterAll(async () => {
  await running.stop();
});

type Conn = { socket: Socket; received: () => string; closed: Promise<void> };

/** A raw connection that records what the server sends and when it closes. */
async function open(): Promise<Conn> {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (data += d));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => data, closed };
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
const head = (method: string, path: string, headers: Record<string, string> = {}) =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

/** Resolves once the server has sent a whole header block, or closed the connection. */
const answered = (c: Conn) =>
  new Promise<string>((resolve) => {
    void c.closed.then(() => resolve(c.received()));
    const check = () => (c.received().includes('\r\n\r\n') ? resolve(c.received()) : setTimeout(check, 5));
    check();
  });

describe('bodies', () => {
  it('refuses a sign-in declaring 10 MB with 413 before reading any of it, and closes the connection', async () => {
    const c = await open();
    c.socket.write(head('POST', '/dashboard/api/sign-in', { 'Content-Type': 'application/json', 'Content-Length': String(10 * 1024 * 1024) }) + '{"email":');
    const raw = await answered(c);
    expect(statusOf(raw)).toBe(413);
    expect(raw).toMatch(/connection: close/i);
    expect(raw).toContain('"code":"payload_too_large"');
    await c.closed;
  });

  it('cuts a chunked sign-in body as soon as it passes 4 KB, without waiting for the rest', async () => {
    const c = await open();
    c.socket.write(head('POST', '/dashboard/api/sign-in', { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }));
    // 5 KB of a body that never ends (no closing chunk): the answer cannot wait for its end.
    for (let i = 0; i < 5; i++) c.socket.write(`400\r\n${'x'.repeat(1024)}\r\n`);
    const raw = await answered(c);
    expect(statusOf(raw)).toBe(413);
    expect(raw).toContain('the request body is larger than 4 KB');
    await c.closed;
  });

  it('caps the small JSON routes at 64 KB', async () => {
    const c = await open();
    const body = JSON.stringify({ name: 'k', pad: 'x'.repeat(70_000) });
    c.socket.write(head('POST', '/v1/keys', { 'x-api-key': manageKey, 'Content-Type': 'application/json', 'Content-Length': String(body.length) }));
    const raw = await answered(c);
    expect(statusOf(raw)).toBe(413);
    expect(raw).toContain('the request body is larger than 64 KB');
    await c.closed;
  });

  it.each([
    ['GET', '/healthz'],
    ['GET', '/udf/time'],
    ['GET', '/assets/css/app.css'],
    ['GET', '/'],
  ])('refuses a body on %s %s (a route that takes none) with 413 before reading it', async (method, path) => {
    const c = await open();
    c.socket.write(head(method, path, { 'Content-Length': '1000000' }));
    const raw = await answered(c);
    expect(statusOf(raw)).toBe(413);
    expect(raw).toContain('this route takes no request body');
    await c.closed;
  });

  it('answers a body that stops arriving with 408 and closes the connection', async () => {
    const c = await open();
    c.socket.write(head('POST', '/dashboard/api/sign-in', { 'Content-Type': 'application/json', 'Content-Length': '100' }) + '{"email":"a');
    await c.closed;
    expect([0, 408]).toContain(statusOf(c.received()));
  });
});

describe('connections', () => {
  it('closes a connection whose headers never finish', async () => {
    const c = await open();
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    await c.closed;
    expect([0, 408]).toContain(statusOf(c.received()));
  });

  it('closes an idle keep-alive connection', async () => {
    const c = await open();
    c.socket.write(head('GET', '/healthz'));
    expect(statusOf(await answered(c))).toBe(200);
    await c.closed;
    expect(c.socket.destroyed).toBe(true);
  });

  it(`holds at most ${CAP} connections from one IP: one more is closed at once, and a freed place can be used again`, async () => {
    const conns: Conn[] = [];
    for (let i = 0; i < CAP; i++) {
      const c = await open();
      // An answered request proves the server counted this connection.
      c.socket.write(head('GET', '/healthz', { Connection: 'keep-alive' }));
      expect(statusOf(await answered(c))).toBe(200);
      conns.push(c);
    }
    const extra = await open();
    extra.socket.write(head('GET', '/healthz'));
    await extra.closed;
    expect(extra.received()).toBe('');

    conns[0]!.socket.destroy();
    await conns[0]!.closed;
    await new Promise((r) => setTimeout(r, 20));
    const again = await open();
    again.socket.write(head('GET', '/healthz'));
    expect(statusOf(await answered(again))).toBe(200);
    for (const c of [...conns, again]) c.socket.destroy();
    await Promise.all([...conns, again].map((c) => c.closed));
  });
});

describe('the sign-in throttle on the wire', () => {
  it('answers an IP past its 30 attempts with 429 before reading the body it declares', async () => {
    let status = 0;
    for (let i = 0; i < 40 && status !== 429; i++) {
      const c = await open();
      const body = JSON.stringify({ email: `probe${i}@example.com`, password: 'guess' });
      c.socket.write(
        head('POST', '/dashboard/api/sign-in', { 'Content-Type': 'application/json', 'Content-Length': String(body.length), Connection: 'close' }) + body,
      );
      status = statusOf(await answered(c));
      expect(status, `attempt ${i}`).not.toBe(0);
      c.socket.destroy();
      await c.closed;
    }
    expect(status).toBe(429);
    const c = await open();
    c.socket.write(head('POST', '/dashboard/api/sign-in', { 'Content-Type': 'application/json', 'Content-Length': '4000' }));
    const raw = await answered(c);
    expect(statusOf(raw)).toBe(429);
    expect(raw).toMatch(/retry-after: \d+/i);
    await c.closed;
  });
});

describe('CONNECT', () => {
  it('is 405 in the envelope, not a reset connection', async () => {
    const c = await open();
    c.socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    await c.closed;
    expect(statusOf(c.received())).toBe(405);
    expect(c.received()).toContain('"code":"method_not_allowed"');
  });
});
