/**
 * The stream's metrics on /metrics, and shutdown of the real server: what was committed before is
 * delivered, open connections are closed with 1001 and stop() still resolves. Commits of another
 * process: external-commits.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, settle, startLive, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import type { IngestRecord } from '../../src/domain/records.js';
import { start } from '../../src/server.js';
import type { Store } from '../../src/store/sqlite/db.js';
import { hubOf } from '../../src/http/stream.js';

let live: Live | null = null;
afterEach(async () => {
  await live?.stop();
  live = null;
});

const T0 = 1_700_000_000;

/** `name{labels}` -> value of the Prometheus text, for the stream_ series (without the instance label every series has). */
function streamSeries(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const raw of text.split('\n')) {
    const line = raw
      .replace(/,?instance="[^"]*"/, '')
      .replace('{,', '{')
      .replace('{}', '');
    const m = /^(stream_[a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

describe('stream metrics', () => {
  it('reports connections, subscriptions by channel, messages by op, resets by reason and the delivery delay', async () => {
    live = await startLive();
    const token = addToken(live, { symbol: 'MET' }).address;
    await live.ingest([aTrade(token, { blockTime: T0 + 100, priceUsd: 1 })]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
    await c.request({ op: 'subscribe', channel: 'trades', token });
    await c.request({ op: 'subscribe', channel: 'prices', tokens: [token] });
    await live.ingest([aTrade(token, { blockTime: T0 + 101, priceUsd: 2 })]);
    // Fanned out before the next commit: two commits heard together are one fan-out (read-ahead.test.ts).
    await hubOf(live.app).idle();
    await live.ingest([aTrade(token, { blockTime: T0 - 500, priceUsd: 3 })]); // backfill
    await c.waitFor((m) => m.op === 'reset');
    await settle();
    const m = streamSeries((await live.http.get('/metrics')).text);
    expect(m['stream_connections']).toBe(1);
    expect(m['stream_subscriptions{channel="bars"}']).toBe(1);
    expect(m['stream_subscriptions{channel="trades"}']).toBe(1);
    expect(m['stream_subscriptions{channel="prices"}']).toBe(1);
    expect(m['stream_subscriptions{channel="overview"}']).toBe(0);
    expect(m['stream_messages_sent_total{op="subscribed"}']).toBe(3);
    expect(m['stream_messages_sent_total{op="trades"}']).toBe(2);
    // The newest bar after subscribing, the update at T0 + 101, the newest again after the reset.
    expect(m['stream_messages_sent_total{op="bar"}']).toBe(3);
    expect(m['stream_resets_total{reason="backfill"}']).toBe(1);
    // Once per change and channel of the token: two ingests, each with trades and bars.
    expect(m['stream_delivery_delay_seconds_count']).toBe(4);
    c.close();
    await c.closed();
    await settle();
    const after = streamSeries((await live.http.get('/metrics')).text);
    expect(after['stream_connections']).toBe(0);
    expect(after['stream_subscriptions{channel="bars"}']).toBe(0);
  });
});

describe('shutdown', () => {
  it('closes open stream connections with 1001 and stops', async () => {
    const running = await start({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: ':memory:', DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'silent' });
    const { port } = running.server.address() as { port: number };
    const a = await Client.open(`ws://127.0.0.1:${port}/v1/stream`);
    const b = await Client.open(`ws://127.0.0.1:${port}/v1/stream`);
    expect((await a.request({ op: 'ping' })).op).toBe('pong');
    const stopped = running.stop();
    expect(await a.closed()).toBe(1001);
    expect(await b.closed()).toBe(1001);
    await stopped;
    expect((running.store as Store).db.open).toBe(false);
  });

  it('delivers what was committed before it, then closes with 1001', async () => {
    const running = await start({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: ':memory:', DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'silent' });
    const { port } = running.server.address() as { port: number };
    const token = aToken({ symbol: 'BYE' });
    const write = (records: readonly IngestRecord[]) => running.services.ingest.ingest(records.map((value, i) => ({ line: i + 1, value })));
    write([...withMarket(token), aTrade(token.address, { blockTime: T0, priceUsd: 1, volumeUsd: 1 })]);
    const c = await Client.open(`ws://127.0.0.1:${port}/v1/stream`);
    const trades = await c.request({ op: 'subscribe', channel: 'trades', token: token.address });
    const bars = await c.request({ op: 'subscribe', channel: 'bars', token: token.address, resolution: '1' });
    await c.waitFor((m) => m.op === 'bar');
    const rows = [
      aTrade(token.address, { blockTime: T0 + 1, priceUsd: 2, volumeUsd: 1 }),
      aTrade(token.address, { blockTime: T0 + 2, priceUsd: 3, volumeUsd: 1 }),
    ];
    // Committed, then at once the stop SIGTERM makes: its fan-out has not run yet.
    write(rows);
    const stopped = running.stop();
    expect(await c.closed()).toBe(1001);
    await stopped;
    expect(c.of(trades.sub, 'trades').flatMap((m) => m.trades.map((t: { signature: string }) => t.signature))).toEqual(rows.map((r) => r.signature));
    expect(c.of(bars.sub, 'bar').at(-1)).toEqual({ op: 'bar', sub: bars.sub, bar: { t: T0 - 20, o: 1, h: 3, l: 1, c: 3, v: 3 }, final: false });
  });
});
