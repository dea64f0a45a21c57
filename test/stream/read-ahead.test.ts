/**
 * The hub reads ahead for each change (src/stream/change-reads.ts) after the commit that caused it,
 * so by then later commits may be in the store too. What the bars read then already hold must not
 * come back as a backfill: two commits heard before the first one's reads run, or a commit landing
 * while a subscription reads its first bar, give the state after both and no `reset`, the bars
 * equal to /udf/history (an ingest still open when a change is heard: read-ahead-join.test.ts).
 * Over a real server, real store and real ws clients; the subscription's
 * read is held back by a wrapper over the real reads (as a slow database would answer).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocketServer } from 'ws';
import { Client, serveHub, settle, startLive, type Live } from './support.js';
import { history } from './chart-client.js';
import { addToken } from '../udf/support.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { Hub } from '../../src/stream/hub.js';
import { streamSource } from '../../src/read/stream-source.js';
import { frameText } from '../../src/http/stream-socket.js';
import type { StreamReads } from '../../src/stream/types.js';

/** 20 s past a minute: minute bars start at T0 - 20, T0 + 40, T0 + 100. */
const T0 = 1_700_000_000;

describe('two commits heard before the first change is read', () => {
  let live: Live;
  afterEach(async () => live.stop());

  it('sends the bars after both, no reset, equal to /udf/history', async () => {
    live = await startLive();
    const token = addToken(live, { symbol: 'TWO' }).address;
    const trade = (blockTime: number, priceUsd: number) => aTrade(token, { blockTime, priceUsd, volumeUsd: 1 });
    live.ingest([trade(T0 + 10, 1)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
    await c.waitFor((m) => m.op === 'bar');

    // Back to back: the first change's reads run after the second commit. The second batch
    // changes the bar at T0 - 20 and starts T0 + 40: an ordinary update, not a backfill.
    live.ingest([trade(T0 + 15, 2)]);
    live.ingest([trade(T0 + 20, 3), trade(T0 + 50, 4)]);
    await c.waitFor((m) => m.op === 'bar' && m.bar.t === T0 + 40);
    await settle();

    const bars = await history(live, token, '1');
    expect(bars).toEqual([
      { t: T0 - 20, o: 1, h: 3, l: 1, c: 3, v: 3 },
      { t: T0 + 40, o: 4, h: 4, l: 4, c: 4, v: 1 },
    ]);
    expect(c.of(ok.sub)).toEqual([
      { op: 'bar', sub: ok.sub, bar: { t: T0 - 20, o: 1, h: 1, l: 1, c: 1, v: 1 }, final: false },
      { op: 'bar', sub: ok.sub, bar: bars[0], final: true },
      { op: 'bar', sub: ok.sub, bar: bars[1], final: false },
    ]);
    c.close();
  });

  it('still resets for a real backfill among them (a trade in a bar older than the newest sent)', async () => {
    live = await startLive();
    const token = addToken(live, { symbol: 'BKF' }).address;
    const trade = (blockTime: number, priceUsd: number) => aTrade(token, { blockTime, priceUsd, volumeUsd: 1 });
    live.ingest([trade(T0 + 50, 1)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
    await c.waitFor((m) => m.op === 'bar');
    live.ingest([trade(T0 + 55, 2)]);
    live.ingest([trade(T0 - 100, 3)]); // lands at T0 - 140, older than the bar sent (T0 + 40)
    await c.waitFor((m) => m.op === 'reset');
    await settle();
    const bars = await history(live, token, '1');
    expect(bars.map((b) => b.t)).toEqual([T0 - 140, T0 + 40]);
    expect(c.of(ok.sub)).toEqual([
      { op: 'bar', sub: ok.sub, bar: { t: T0 + 40, o: 1, h: 1, l: 1, c: 1, v: 1 }, final: false },
      { op: 'reset', sub: ok.sub, reason: 'backfill' },
      { op: 'bar', sub: ok.sub, bar: bars[1], final: false },
    ]);
    c.close();
  });
});

describe('a commit landing while a subscription reads its first bar', () => {
  let t: TestApp;
  let wss: WebSocketServer;
  let hub: Hub;
  afterEach(async () => {
    await hub.close(200);
    wss.close();
    await t.close();
  });

  it('is not sent as a backfill: the first bar already holds it', async () => {
    t = makeTestApp();
    const token = aToken({ symbol: 'SUB' });
    t.ingest([...withMarket(token), aTrade(token.address, { blockTime: T0 + 10, priceUsd: 1, volumeUsd: 1 })]);
    const real = streamSource(t.app.deps);
    let gate: Promise<void> | null = null;
    let held = 0;
    let reached!: () => void;
    const reading = new Promise<void>((resolve) => (reached = resolve));
    const source: StreamReads = {
      ...real,
      // The subscription's first read of the newest bar waits, then reads the store as it is then.
      newestBar: async (...args) => {
        if (gate !== null && held++ === 0) {
          reached();
          await gate;
        }
        return real.newestBar(...args);
      },
    };
    hub = new Hub({ source, metrics: t.services.metrics.stream, frame: frameText });
    let url: string;
    ({ wss, url } = await serveHub(hub));
    const c = await Client.open(url);

    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const answered = c.request({ op: 'subscribe', channel: 'bars', token: token.address, resolution: '1' });
    await reading;
    expect(held).toBe(1);
    // Changes the bar at T0 - 20 and starts T0 + 40 while the first bar is being read.
    await t.ingest([
      aTrade(token.address, { blockTime: T0 + 20, priceUsd: 2, volumeUsd: 1 }),
      aTrade(token.address, { blockTime: T0 + 50, priceUsd: 3, volumeUsd: 1 }),
    ]);
    open();
    const ok = await answered;
    await c.waitFor((m) => m.op === 'bar');
    await hub.idle();
    await settle();
    const res = await t.http.get('/udf/history').query({ symbol: token.address, resolution: '1', to: 253402300800, countback: 10 });
    expect(res.body.t).toEqual([T0 - 20, T0 + 40]);
    expect(c.of(ok.sub)).toEqual([{ op: 'bar', sub: ok.sub, bar: { t: T0 + 40, o: 3, h: 3, l: 3, c: 3, v: 1 }, final: false }]);
    c.close();
  });
});
