/**
 * A retraction seen by every instance (docs/api.md, Live stream: Reorgs; docs/operations.md, Many
 * instances): two server processes on one PostgreSQL database and one Redis, and a third process
 * (this test's, wired to the bus as the CLI and the chain indexer are) that takes trades back out
 * with the ingest's `retract`. Subscribers on both instances get `removed` and `reset` reorg and
 * the newest bar as it is now; the tenant registered to the token gets its `trades_removed` event
 * by webhook from the instances' workers, signed.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { loadConfig } from '../../src/config.js';
import { openConfiguredStore } from '../../src/open-store.js';
import { createServices } from '../../src/services/index.js';
import { createCoord } from '../../src/coord/wiring.js';
import { createLogger } from '../../src/logger.js';
import { systemClock } from '../../src/domain/clock.js';
import { aToken, aTrade, ndjson, withMarket } from '../helpers/builders.js';
import { Client } from '../stream/support.js';
import { startReceiver, type Receiver } from '../subscriptions/receiver.js';
import { freshDatabase, type FreshDatabase } from './support.js';
import { health, ownRedis, startServer, until, type Instance, type OwnRedis } from './instances.js';
import type { TradeRecord } from '../../src/domain/records.js';

let db: FreshDatabase;
let redis: OwnRedis;
let a: Instance;
let b: Instance;
let receiver: Receiver;
let key: string;
let env: Record<string, string>;
/** The minute bars: T0 is on a minute. */
const T0 = 1_700_000_040;

async function ingest(i: Instance, records: unknown[]): Promise<void> {
  const res = await fetch(`${i.base}/v1/ingest`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/x-ndjson' },
    body: ndjson(records as never),
  });
  expect(res.status).toBe(200);
}

/** Takes `trades` out in a process of its own on the bus, as the chain indexer would. */
async function retract(trades: readonly TradeRecord[]): Promise<number> {
  const config = loadConfig(env);
  const store = await openConfiguredStore(config);
  const services = createServices({ store, clock: systemClock, config });
  const coord = createCoord({ config, store, logger: createLogger('silent'), registry: services.metrics.registry });
  try {
    expect(await coord.ready(5000)).toBe('up');
    const r = await services.ingest.retract({ trades: trades.map((t) => ({ signature: t.signature, index: t.index })), markets: [], tokens: [], records: [] });
    await coord.drain();
    return r.removed;
  } finally {
    await coord.close();
    await store.close();
  }
}

describe('a retraction on PostgreSQL with Redis, seen by two instances', () => {
  beforeAll(async () => {
    db = await freshDatabase('reorg_stream');
    redis = await ownRedis();
    await redis.start();
    receiver = await startReceiver([204]);
    env = { DATABASE_URL: db.url, REDIS_URL: redis.url, DEMO_DATA: 'off', DEMO_FEED: 'off', WEBHOOK_ALLOW_PRIVATE: 'true' };
    let out = '';
    const io = { stdout: (x: string) => (out += x), stderr: () => undefined, stdin: process.stdin, env };
    expect(await main(['tenants', 'create', '--name', 'Reorg', '--plan', 'enterprise', '--json'], io)).toBe(0);
    const tenant = (JSON.parse(out) as { id: string }).id;
    out = '';
    expect(await main(['keys', 'create', '--tenant', tenant, '--scopes', 'read,manage,ingest', '--json'], io)).toBe(0);
    key = (JSON.parse(out) as { secret: string }).secret;
    [a, b] = await Promise.all([startServer('reorg-a', env), startServer('reorg-b', env)]);
    await until(
      async () => [(await health(a)).body.status, (await health(b)).body.status],
      (st) => st.every((x) => x === 'ok'),
      'both instances are ok',
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    redis?.kill();
    await receiver?.close();
    await db?.drop();
  });

  it('sends removed, reset reorg and the newest bar on both, and the trades_removed webhook once', async () => {
    const token = aToken({ symbol: 'ORPH' });
    const kept = aTrade(token.address, { blockTime: T0 + 10, priceUsd: 2 });
    const orphaned = aTrade(token.address, { blockTime: T0 + 70, priceUsd: 3 });
    await ingest(a, withMarket(token));
    const reg = await fetch(`${a.base}/v1/tokens/register`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ address: token.address, webhookUrl: receiver.url() }),
    });
    expect(reg.status).toBe(201);
    const webhookSecret = ((await reg.json()) as { webhookSecret: string }).webhookSecret;

    const clients = await Promise.all([a, b].map((i) => Client.open(`ws://127.0.0.1:${i.port}/v1/stream`)));
    const subs = await Promise.all(
      clients.map(async (c) => ({
        bars: (await c.request({ op: 'subscribe', channel: 'bars', token: token.address, resolution: '1' })).sub as string,
        trades: (await c.request({ op: 'subscribe', channel: 'trades', token: token.address })).sub as string,
      })),
    );
    await ingest(b, [kept, orphaned]);
    for (const c of clients) await c.waitFor((m) => m.op === 'bar' && m.bar.t === T0 + 60);
    const sent = clients[0]!.of(subs[0]!.trades, 'trades')[0]!.trades as { id: number; signature: string; index: number }[];
    const orphanedId = sent.find((t) => t.signature === orphaned.signature)!.id;

    expect(await retract([orphaned])).toBe(1);
    for (const [i, c] of clients.entries()) {
      const s = subs[i]!;
      await c.waitFor((m) => m.sub === s.bars && m.op === 'bar' && m.bar.t === T0);
      const removed = await c.waitFor((m) => m.sub === s.trades && m.op === 'removed');
      expect(removed).toEqual({ op: 'removed', sub: s.trades, trades: [{ id: orphanedId, signature: orphaned.signature, index: orphaned.index }] });
      expect(c.of(s.bars).map((m) => (m.op === 'bar' ? [m.bar.t, m.bar.c] : [m.op, m.reason]))).toEqual([
        [T0 + 60, 3],
        ['reset', 'reorg'],
        [T0, 2],
      ]);
    }

    // The webhook: the trades event of the ingest, then the trades_removed event, each signed.
    await until(
      async () => receiver.received.length,
      (n) => n >= 2,
      'both events are delivered',
    );
    // Order across events is not promised (docs/api.md, Webhooks): by event id.
    const bodies = receiver.received
      .map((r) => JSON.parse(r.body) as { id: string; type: string; data: unknown })
      .sort((x, y) => Number(x.id.slice(4)) - Number(y.id.slice(4)));
    expect(bodies.map((e) => e.type)).toEqual(['trades', 'trades_removed']);
    expect(bodies[1]!.data).toEqual({ trades: [{ id: orphanedId, signature: orphaned.signature, index: orphaned.index }] });
    for (const r of receiver.received) {
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['svc-signature']))!;
      expect(createHmac('sha256', webhookSecret).update(`${m[1]}.${r.body}`).digest('hex')).toBe(m[2]);
    }
    // History on either instance is what the stream said.
    for (const i of [a, b]) {
      const h = (await (await fetch(`${i.base}/udf/history?symbol=${token.address}&resolution=1&from=${T0 - 60}&to=${T0 + 120}`)).json()) as {
        t: number[];
        c: number[];
      };
      expect([h.t, h.c]).toEqual([[T0], [2]]);
    }
    for (const c of clients) c.close();
  }, 60_000);
});
