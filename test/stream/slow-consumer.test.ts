/**
 * A client that stops reading (docs/api.md, Live stream, Slow consumers): what waits for it on the
 * server stays bounded (trades over 4 MB waiting give reset overflow and stop; bars are coalesced
 * to the newest state, each bar's last state equal to /udf/history), and once it reads again it
 * gets the overflow reset and the final bar.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, settle, startLive, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import { hubOf } from '../../src/http/stream.js';
import { TRADES_OVERFLOW } from '../../src/stream/connection.js';
import { history } from './chart-client.js';

let live: Live;
afterEach(async () => live.stop());

const T0 = 1_700_000_000;

describe('a client that stops reading', () => {
  it('never has more than 4 MB plus one message waiting; its trades overflow and its bars are coalesced', async () => {
    live = await startLive();
    const token = addToken(live, { symbol: 'SLOW' }).address;
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const bars = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' }); // a new bar every third batch
    const trades = await c.request({ op: 'subscribe', channel: 'trades', token });
    c.ws.pause();

    const hub = hubOf(live.app);
    let most = 0;
    let biggestMessage = 0;
    const batches = 60;
    for (let b = 0; b < batches; b++) {
      const rows = Array.from({ length: 1000 }, (_, i) => aTrade(token, { blockTime: T0 + 20 * b, priceUsd: 1 + b + i / 1000, volumeUsd: 1 }));
      biggestMessage = Math.max(biggestMessage, JSON.stringify(rows).length * 2);
      await live.ingest(rows);
      // The fan-out of a change runs once its reads are answered (src/stream/change-reads.ts).
      await hub.idle();
      most = Math.max(most, ...hub.buffered());
    }
    // The bound: trades stop once 4 MB wait; one message may be on its way past the check.
    expect(most).toBeLessThanOrEqual(TRADES_OVERFLOW + biggestMessage);
    expect(most).toBeGreaterThan(1024 * 1024); // the client really was not reading

    c.ws.resume();
    await c.waitFor((m) => m.op === 'reset' && m.sub === trades.sub, 20_000);
    const all = await history(live, token, '1');
    const newest = all.at(-1)!;
    const last = await c.waitFor((m) => m.op === 'bar' && m.sub === bars.sub && m.bar.t === newest.t && m.bar.c === newest.c, 20_000);
    expect(last.bar).toEqual(newest);
    await settle(200);
    const barMessages = c.of(bars.sub, 'bar');
    // Coalesced: fewer messages than changes, and the last state of every bar received is history's.
    expect(barMessages.length).toBeLessThan(batches);
    const lastOf = new Map<number, unknown>();
    for (const m of barMessages) lastOf.set(m.bar.t, m.bar);
    expect(lastOf.size).toBeGreaterThan(1);
    for (const [t, bar] of lastOf) expect(bar).toEqual(all.find((b) => b.t === t));
    expect(c.of(bars.sub, 'reset')).toEqual([]);
    expect(c.of(trades.sub, 'reset')).toEqual([{ op: 'reset', sub: trades.sub, reason: 'overflow' }]);
    // Trades were delivered in order up to the overflow, none after it.
    const got = c.of(trades.sub, 'trades').flatMap((m) => m.trades.map((t: { id: number }) => t.id));
    expect(got).toEqual([...got].sort((a, b) => a - b));
    expect(got.length).toBeLessThan(batches * 1000);
    const resetAt = c.messages.findIndex((m) => m.op === 'reset' && m.sub === trades.sub);
    expect(c.messages.slice(resetAt).some((m) => m.op === 'trades')).toBe(false);
    c.close();
  }, 120_000); // 60 batches of 1,000 trades: tens of seconds on a loaded PostgreSQL

  it('keeps the bound within one large ingest batch too: never more than 4 MB plus one message waiting', async () => {
    live = await startLive();
    const token = addToken(live, { symbol: 'BIG' }).address;
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const trades = await c.request({ op: 'subscribe', channel: 'trades', token });
    c.ws.pause();
    const rows = Array.from({ length: 30_000 }, (_, i) => aTrade(token, { blockTime: T0 + i, priceUsd: 1 + i / 1000, volumeUsd: 1 }));
    const biggestMessage = JSON.stringify(rows.slice(0, 1000)).length * 2;
    await live.ingest(rows); // one transaction, one change: 30 messages of 1000 trades, about 10 MB
    await hubOf(live.app).idle();
    // What the kernel's socket buffers take is not waiting in the server; the rest is bounded.
    expect(Math.max(...hubOf(live.app).buffered())).toBeLessThanOrEqual(TRADES_OVERFLOW + biggestMessage);
    c.ws.resume();
    const count = () => c.of(trades.sub, 'trades').reduce((n, m) => n + m.trades.length, 0);
    await c.waitFor((m) => (m.op === 'reset' && m.sub === trades.sub) || count() === rows.length, 30_000);
    await settle(200);
    // In order up to the overflow (if the kernel's buffers did not take it all), nothing after it.
    const got = c.of(trades.sub, 'trades').flatMap((m) => m.trades.map((t: { id: number }) => t.id));
    expect(got).toEqual([...got].sort((a, b) => a - b));
    const resets = c.of(trades.sub, 'reset');
    if (resets.length === 0) expect(got).toHaveLength(rows.length);
    else expect(resets).toEqual([{ op: 'reset', sub: trades.sub, reason: 'overflow' }]);
    c.close();
  }, 60_000);
});
