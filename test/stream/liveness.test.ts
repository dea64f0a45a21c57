/**
 * Liveness (docs/api.md, Live stream): the hub pings, and cuts a connection that stops answering
 * pings; one that answers stays. Run on a hub with short intervals over a real ws server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import type { WebSocketServer } from 'ws';
import WebSocket from 'ws';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { Hub } from '../../src/stream/hub.js';
import { streamSource } from '../../src/read/stream-source.js';
import { frameText } from '../../src/http/stream-socket.js';
import { serveHub } from './support.js';

let t: TestApp;
let wss: WebSocketServer;
let hub: Hub;
afterEach(async () => {
  await hub.close(200);
  wss.close();
  t.close();
});

describe('liveness', () => {
  it('cuts a connection that does not answer pings and keeps one that does', async () => {
    t = makeTestApp();
    hub = new Hub({ source: streamSource(t.app.deps), metrics: t.services.metrics.stream, frame: frameText, pingEveryMs: 50, deadAfterMs: 150 });
    let url: string;
    ({ wss, url } = await serveHub(hub));
    const silent = new WebSocket(url, { autoPong: false });
    const alive = new WebSocket(url);
    let pings = 0;
    alive.on('ping', () => pings++);
    await Promise.all([once(silent, 'open'), once(alive, 'open')]);
    const [code] = (await once(silent, 'close')) as [number];
    expect(code).toBe(1006); // cut, not closed politely: it was not listening
    // The one that answers outlives pings beyond the silent one's limit (the third one's ping may
    // still be on its way when the silent one is cut: waited for, not raced).
    for (let i = 0; i < 200 && pings < 4; i++) await new Promise((r) => setTimeout(r, 10));
    expect(pings).toBeGreaterThanOrEqual(4);
    expect(alive.readyState).toBe(WebSocket.OPEN);
    for (let i = 0; i < 100 && hub.connections > 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(hub.connections).toBe(1);
    alive.close();
  });
});
