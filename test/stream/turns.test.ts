/**
 * The hub's turns (src/stream/hub.ts, src/stream/change-reads.ts): the store's reads answer
 * promises, so a change heard while a subscription's start is still reading waits for it. A
 * `sinceId` replay held open on a gate while trades land must still give every trade once, the
 * replay first and the live trades after it. Run on a hub over a real ws server and the real
 * store, with the replay's read answered only when the gate opens (as a slow database would).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocketServer } from 'ws';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { Hub } from '../../src/stream/hub.js';
import { streamSource } from '../../src/read/stream-source.js';
import { frameText } from '../../src/http/stream-socket.js';
import type { StreamReads } from '../../src/stream/types.js';
import { Client, serveHub, settle } from './support.js';

let t: TestApp;
let wss: WebSocketServer;
let hub: Hub;
afterEach(async () => {
  await hub.close(200);
  wss.close();
  t.close();
});

const T0 = 1_700_000_000;

describe('a change heard while a subscription starts', () => {
  it('reaches it after its replay: every trade once, in id order', async () => {
    t = makeTestApp();
    const token = aToken({ symbol: 'TRN' });
    t.ingest([...withMarket(token), ...[1, 2, 3].map((i) => aTrade(token.address, { blockTime: T0 + i }))]);
    const real = streamSource(t.app.deps);
    let hold: Promise<void> | null = null;
    let held = 0;
    const source: StreamReads = {
      ...real,
      tradesAfter: async (...args) => {
        const rows = await real.tradesAfter(...args);
        // Only the first read (the replay) is held; the change's own reads answer at once.
        if (hold !== null && held++ === 0) await hold;
        return rows;
      },
    };
    hub = new Hub({ source, metrics: t.services.metrics.stream, frame: frameText });
    let url: string;
    ({ wss, url } = await serveHub(hub));
    const c = await Client.open(url);

    let open!: () => void;
    hold = new Promise<void>((resolve) => (open = resolve));
    const sub = (await c.request({ op: 'subscribe', channel: 'trades', token: token.address, sinceId: 0 })).sub as string;
    for (let i = 0; i < 100 && held === 0; i++) await settle(10);
    expect(held).toBe(1);
    // Two trades commit while the replay (read before them) is still on its way.
    t.ingest([aTrade(token.address, { blockTime: T0 + 4 }), aTrade(token.address, { blockTime: T0 + 5 })]);
    // Time enough for the change's own reads and fan-out, were it not waiting for the subscription's turn.
    await settle(100);
    open();
    await c.waitFor(() => c.of(sub, 'trades').flatMap((m) => m.trades).length >= 5);
    await settle();
    const batches = c.of(sub, 'trades').map((m) => m.trades.map((tr: { id: number }) => tr.id));
    const ids = batches.flat();
    expect(ids).toHaveLength(5);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(5);
    // The replay is one message of the three stored before; the ingest's two come after it, together.
    expect(batches.map((b) => b.length)).toEqual([3, 2]);
    c.close();
  });
});
