/**
 * gracefulClose: requests already sent when the server starts closing are all answered, none is
 * reset, where Node's own server.close() resets the ones it has not read yet.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gracefulClose } from '../../src/http/graceful-close.js';
import { rawGet, type RawAnswer } from './support.js';

/** A server whose every answer takes `ms` of synchronous work, like a heavy SQLite read. */
function busyServer(ms: number): http.Server {
  return http.createServer((_req, res) => {
    const until = Date.now() + ms;
    while (Date.now() < until);
    res.end('ok');
  });
}

async function fireAndClose(server: http.Server, close: () => Promise<void>, n: number) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const all: Promise<RawAnswer>[] = [];
  for (let i = 0; i < n; i++) all.push(rawGet(port, '/'));
  await Promise.race(all);
  const closed = close();
  const answers = await Promise.all(all);
  await closed;
  return answers;
}

/** Lets the event loop turn a few times (setImmediate is never faked here). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

afterEach(() => {
  vi.useRealTimers();
});

describe('gracefulClose', () => {
  it('answers every request sent before close, with Connection: close, and then closes', async () => {
    const server = busyServer(10);
    const graceful = gracefulClose(server);
    const answers = await fireAndClose(server, () => graceful.close(5000), 40);
    expect(answers.filter((a) => 'error' in a)).toEqual([]);
    expect(answers.every((a) => !('error' in a) && a.status === 200 && a.body === 'ok')).toBe(true);
    // At least the answers written after close began told the client the connection ends.
    expect(answers.some((a) => !('error' in a) && a.headers.connection === 'close')).toBe(true);
    expect(graceful.connections).toBe(0);
    expect(server.listening).toBe(false);
  });

  it('is needed: plain server.close() resets requests it has not read yet', async () => {
    const server = busyServer(10);
    const answers = await fireAndClose(server, () => new Promise<void>((resolve) => server.close(() => resolve())), 40);
    expect(answers.filter((a) => 'error' in a).length).toBeGreaterThan(0);
  });

  it('closes idle keep-alive connections at once instead of waiting for their timeout', async () => {
    const server = busyServer(0);
    server.keepAliveTimeout = 60_000;
    const graceful = gracefulClose(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true });
    const status = await new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, agent }, (res) => (res.resume(), res.on('end', () => resolve(res.statusCode ?? 0)))).on('error', reject);
    });
    expect(status).toBe(200);
    expect(graceful.connections).toBe(1);
    // With the deadline's timer frozen, close can only finish by closing the idle connection itself.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await graceful.close(30_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(graceful.connections).toBe(0);
    agent.destroy();
  });

  it('cuts connections that never send a request once the timeout is over', async () => {
    const server = busyServer(0);
    const graceful = gracefulClose(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const { connect } = await import('node:net');
    const silent = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => silent.once('connect', () => resolve()));
    while (graceful.connections === 0) await new Promise((r) => setTimeout(r, 5));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let done = false;
    const closing = graceful.close(300).then(() => void (done = true));
    await turns(20);
    vi.advanceTimersByTime(299);
    await turns(20);
    // One millisecond before the deadline the silent connection is still open ...
    expect(done).toBe(false);
    expect(graceful.connections).toBe(1);
    vi.advanceTimersByTime(1);
    await closing;
    // ... and at the deadline it is cut.
    expect(graceful.connections).toBe(0);
    silent.destroy();
  });
});
