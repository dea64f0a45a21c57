/**
 * Stream memory across connections (docs/api.md, Live stream: slow consumers and client
 * messages): the bytes waiting for all connections together stay within the hub's budget (the
 * slowest readers are reset and cut first, a reader that keeps up is untouched), and every
 * client message is metered per connection, pings included; a ping over 1 KB is refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, settle, startLive, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import { hubOf } from '../../src/http/stream.js';
import { MESSAGE_BURST } from '../../src/stream/connection.js';
import { MAX_PING_BYTES } from '../../src/stream/protocol.js';

let live: Live;
afterEach(async () => live.stop());

const T0 = 1_700_000_000;
const BUDGET = 3 * 1024 * 1024;

describe('the stream budget across connections', () => {
  it('cuts the slowest readers until what waits fits, and leaves a reader that keeps up alone', async () => {
    live = await startLive();
    const hub = hubOf(live.app);
    hub.budgetBytes = BUDGET;
    const token = addToken(live, { symbol: 'BUDG' }).address;
    const slow: Client[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await Client.open(`${live.wsBase}/v1/stream`);
      await c.request({ op: 'subscribe', channel: 'trades', token });
      c.ws.pause();
      slow.push(c);
    }
    const reader = await Client.open(`${live.wsBase}/v1/stream`);
    const sub = (await reader.request({ op: 'subscribe', channel: 'trades', token })).sub as string;
    let most = 0;
    let sent = 0;
    for (let b = 0; b < 3; b++) {
      const rows = Array.from({ length: 10_000 }, (_, i) => aTrade(token, { blockTime: T0 + b, priceUsd: 1 + i / 1000, volumeUsd: 1 }));
      await live.ingest(rows);
      sent += rows.length;
      await hub.idle();
      // The budget is kept at the latest one turn later.
      await settle(20);
      most = Math.max(
        most,
        hub.buffered().reduce((a, x) => a + x, 0),
      );
    }
    // One batch's messages may be on their way past the count, for each connection still open.
    const oneBatch = 1000 * 400;
    expect(most).toBeLessThanOrEqual(BUDGET + 5 * oneBatch);
    // Some slow readers were cut on the server (a paused client has not read its close yet).
    expect(hub.connections).toBeLessThan(5);
    expect(hub.connections).toBeGreaterThanOrEqual(1);
    expect(hub.buffered().reduce((a, x) => a + x, 0)).toBeLessThanOrEqual(BUDGET);
    // The reader got every trade, in order, and no reset.
    await reader.waitFor(() => reader.of(sub, 'trades').reduce((n, m) => n + m.trades.length, 0) === sent, 20_000);
    expect(reader.of(sub, 'reset')).toEqual([]);
    expect(reader.closeCode).toBeNull();
    reader.close();
  }, 120_000);
});

describe('client messages', () => {
  it('refuse a ping over 1 KB with invalid_parameter, and answer one of 1 KB', async () => {
    live = await startLive();
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const base = JSON.stringify({ op: 'ping', id: 'p1', pad: '' });
    c.send(JSON.stringify({ op: 'ping', id: 'p1', pad: 'x'.repeat(MAX_PING_BYTES - base.length) }));
    expect(await c.waitFor((m) => m.id === 'p1')).toEqual({ op: 'pong', id: 'p1' });
    c.send(JSON.stringify({ op: 'ping', id: 'p2', pad: 'x'.repeat(MAX_PING_BYTES - base.length + 1) }));
    expect(await c.waitFor((m) => m.id === 'p2')).toEqual({
      op: 'error',
      id: 'p2',
      error: { code: 'invalid_parameter', message: 'a ping may be at most 1024 bytes', param: 'op' },
    });
    c.close();
  });

  it('meter every message, pings included: past the burst they are rate_limited and count as bad ones', async () => {
    live = await startLive();
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const n = MESSAGE_BURST + 100;
    for (let i = 0; i < n; i++) c.send({ op: 'ping', id: `q${i}` });
    await c.waitFor(() => c.messages.length === n || c.closeCode !== null, 20_000);
    const pongs = c.messages.filter((m) => m.op === 'pong').length;
    const limited = c.messages.filter((m) => m.op === 'error' && m.error.code === 'rate_limited');
    // The burst, plus what refilled at 50 a second while they arrived.
    expect(pongs).toBeGreaterThanOrEqual(MESSAGE_BURST);
    expect(pongs).toBeLessThan(n);
    expect(limited.length).toBe(n - pongs);
    expect(limited[0]).toEqual({ op: 'error', id: null, error: { code: 'rate_limited', message: 'too many messages on this connection; slow down' } });
    c.close();
  });
});
