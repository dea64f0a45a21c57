/**
 * What the live stream says after a retraction (docs/api.md, Live stream: Reorgs), over a real
 * listening server and real ws clients, the retraction made by the ingest's own `retract`: a bars
 * subscription gets `reset` reorg and the newest bar as it is now, a trades subscription `removed`
 * with the trades it was sent, prices and overview the new state; live bars go on from the state
 * after the removal, a `sinceId` replay never yields a removed trade, and the reset is counted.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, settle, startLive, written, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aToken, aTrade, homeMarket } from '../helpers/builders.js';
import { hubOf } from '../../src/http/stream.js';
import type { TradeRecord } from '../../src/domain/records.js';

let live: Live;
let token: string;
/** The fake clock's start; 20 s past a minute, so minute bars start at T0 - 20, T0 + 40, T0 + 100. */
const T0 = 1_700_000_000;

beforeEach(async () => {
  live = await startLive();
  token = addToken(live, { symbol: 'ORPH' }).address;
});
afterEach(async () => live.stop());

const trade = (blockTime: number, priceUsd: number, volumeUsd = 1, of = token) => aTrade(of, { blockTime, priceUsd, volumeUsd });

/** Takes `trades` back out of the store, as the chain indexer does when their blocks are orphaned. */
async function retract(trades: readonly TradeRecord[]): Promise<number> {
  await written(live);
  const r = await live.services.ingest.retract({
    trades: trades.map((t) => ({ signature: t.signature, index: t.index })),
    markets: [],
    tokens: [],
    records: [],
  });
  return r.removed;
}

/** The record numbers of the token's stored trades, oldest first. */
async function idsOf(address: string): Promise<number[]> {
  const res = await live.http.get(`/v1/token/${address}/trades?limit=100`);
  return (res.body.trades as { id: number }[]).map((t) => t.id).sort((a, b) => a - b);
}

async function resets(reason: string): Promise<number> {
  const text = (await live.http.get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith('stream_resets_total{') && l.includes(`reason="${reason}"`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('after a retraction', () => {
  it('resets bars with reason reorg, then sends the newest bar as it is now and goes on from it', async () => {
    const orphaned = trade(T0 + 130, 3, 5);
    await live.ingest([trade(T0 + 10, 1), trade(T0 + 70, 2), orphaned]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
    await c.waitFor((m) => m.op === 'bar' && m.bar.t === T0 + 100);

    expect(await retract([orphaned])).toBe(1);
    await c.waitFor((m) => m.op === 'reset');
    await c.waitFor((m) => m.op === 'bar' && m.bar.t === T0 + 40);
    // The new branch: a trade in the bar the orphaned one had started.
    await live.ingest([trade(T0 + 140, 4, 2)]);
    await c.waitFor((m) => m.op === 'bar' && m.bar.c === 4);
    await settle();
    expect(c.of(ok.sub)).toEqual([
      { op: 'bar', sub: ok.sub, bar: { t: T0 + 100, o: 3, h: 3, l: 3, c: 3, v: 5 }, final: false },
      { op: 'reset', sub: ok.sub, reason: 'reorg' },
      { op: 'bar', sub: ok.sub, bar: { t: T0 + 40, o: 2, h: 2, l: 2, c: 2, v: 1 }, final: false },
      // The bar at T0 + 40 did not change since it was sent: not sent again with final:true.
      { op: 'bar', sub: ok.sub, bar: { t: T0 + 100, o: 4, h: 4, l: 4, c: 4, v: 2 }, final: false },
    ]);
    // What history says now is what the stream said.
    const h = await live.http.get(`/udf/history?symbol=${token}&resolution=1&from=${T0 - 100}&to=${T0 + 200}`);
    expect(h.body).toMatchObject({ s: 'ok', t: [T0 - 20, T0 + 40, T0 + 100], c: [1, 2, 4], v: [1, 1, 2] });
    expect(await resets('reorg')).toBe(1);
    c.close();
  });

  it('sends the bar subscription no bar after the reset when the token has no trade left', async () => {
    const only = trade(T0 + 10, 1);
    await live.ingest([only]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '15' });
    await c.waitFor((m) => m.op === 'bar');
    await retract([only]);
    await c.waitFor((m) => m.op === 'reset');
    await live.ingest([trade(T0 + 20, 7)]);
    await c.waitFor((m) => m.op === 'bar' && m.bar.c === 7);
    expect(c.of(ok.sub).map((m) => (m.op === 'bar' ? [m.bar.t, m.bar.c] : [m.op, m.reason]))).toEqual([
      [T0 - 800, 1],
      ['reset', 'reorg'],
      [T0 - 800, 7],
    ]);
    c.close();
  });

  it('tells trades subscribers which trades went (ascending by id), before the trades that come after', async () => {
    const kept = trade(T0 + 10, 1);
    const a = trade(T0 + 20, 2);
    const b = trade(T0 + 30, 3);
    await live.ingest([kept]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token });
    await live.ingest([b, a]);
    await c.waitFor((m) => m.op === 'trades');
    const [keptId, bId, aId] = await idsOf(token);

    await retract([a, b]);
    const removed = await c.waitFor((m) => m.op === 'removed');
    expect(removed).toEqual({
      op: 'removed',
      sub: ok.sub,
      trades: [
        { id: bId, signature: b.signature, index: b.index },
        { id: aId, signature: a.signature, index: a.index },
      ],
    });
    const next = trade(T0 + 25, 4);
    await live.ingest([next]);
    await c.waitFor((m) => m.op === 'trades' && m.trades[0].priceUsd === 4);
    expect(c.of(ok.sub).map((m) => [m.op, m.trades.map((t: { id: number }) => t.id)])).toEqual([
      ['trades', [aId, bId]], // ascending by (blockTime, id)
      ['removed', [bId, aId]],
      ['trades', [aId! + 1]],
    ]);
    // Record numbers are never given out again.
    expect(await idsOf(token)).toEqual([keptId, aId! + 1]);

    // A sinceId replay after the removal never yields a removed trade.
    const again = await c.request({ op: 'subscribe', channel: 'trades', token, sinceId: 0 });
    const replay = await c.waitFor((m) => m.sub === again.sub && m.op === 'trades');
    expect(replay.trades.map((t: { id: number }) => t.id)).toEqual([keptId, aId! + 1]);
    c.close();
  });

  it('names no trade a subscription was never sent, and touches nothing of another token', async () => {
    const other = addToken(live, { symbol: 'KEEP' }).address;
    const early = trade(T0 + 10, 1);
    await live.ingest([early, trade(T0 + 10, 5, 1, other)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const mine = await c.request({ op: 'subscribe', channel: 'trades', token });
    const bars = await c.request({ op: 'subscribe', channel: 'bars', token: other, resolution: '1' });
    const theirs = await c.request({ op: 'subscribe', channel: 'trades', token: other });
    await c.waitFor((m) => m.sub === bars.sub && m.op === 'bar');
    // Stored before the subscription began: it was never sent on it.
    await retract([early]);
    await hubOf(live.app).idle();
    expect((await c.request({ op: 'ping' })).op).toBe('pong');
    await settle();
    expect(c.of(mine.sub)).toEqual([]);
    expect(c.of(theirs.sub)).toEqual([]);
    expect(c.of(bars.sub).map((m) => m.op)).toEqual(['bar']);
    c.close();
  });

  it('follows a token deleted whole when the new branch brings its address back (a new record number)', async () => {
    const fresh = aToken({ symbol: 'NEWT' });
    const a = trade(T0 + 10, 1, 1, fresh.address);
    const b = trade(T0 + 20, 2, 1, fresh.address);
    await live.ingest([fresh, homeMarket(fresh.address), a, b]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const bars = await c.request({ op: 'subscribe', channel: 'bars', token: fresh.address, resolution: '1' });
    const trades = await c.request({ op: 'subscribe', channel: 'trades', token: fresh.address, sinceId: 0 });
    const prices = await c.request({ op: 'subscribe', channel: 'prices', tokens: [fresh.address] });
    await c.waitFor((m) => m.sub === trades.sub && m.op === 'trades');
    await c.waitFor((m) => m.sub === prices.sub && m.op === 'price');
    const [aId, bId] = await idsOf(fresh.address);

    // Both trades, and the token first seen with them, go.
    await written(live);
    const r = await live.services.ingest.retract({ trades: [], markets: [], tokens: [fresh.address], records: [] });
    expect(r.removed).toBe(2);
    await c.waitFor((m) => m.sub === trades.sub && m.op === 'removed');
    await c.waitFor((m) => m.sub === bars.sub && m.op === 'reset');
    expect((await live.http.get(`/v1/token/${fresh.address}/overview`)).status).toBe(404);

    // The new branch holds the token again, after another new one (so its record number is new on
    // either engine): the same subscriptions follow it.
    const again = trade(T0 + 30, 5, 2, fresh.address);
    await live.ingest([aToken({ symbol: 'OTHR' }), fresh, homeMarket(fresh.address), again]);
    await c.waitFor((m) => m.sub === trades.sub && m.op === 'trades' && m.trades[0].priceUsd === 5);
    await c.waitFor((m) => m.sub === bars.sub && m.op === 'bar' && m.bar.c === 5);
    await c.waitFor((m) => m.sub === prices.sub && m.op === 'price' && m.priceUsd === 5, 3000);
    const [againId] = await idsOf(fresh.address);
    expect(againId).toBeGreaterThan(bId!);
    expect(c.of(trades.sub).map((m) => [m.op, m.trades.map((t: { id: number }) => t.id)])).toEqual([
      ['trades', [aId, bId]],
      ['removed', [aId, bId]],
      ['trades', [againId]],
    ]);
    expect(c.of(bars.sub).map((m) => (m.op === 'bar' ? [m.bar.t, m.bar.c, m.bar.v] : [m.op, m.reason]))).toEqual([
      [T0 - 20, 2, 2],
      ['reset', 'reorg'],
      [T0 - 20, 5, 2],
    ]);
    // Unsubscribing finds the subscription where it moved.
    expect((await c.request({ op: 'unsubscribe', sub: trades.sub })).op).toBe('unsubscribed');
    await live.ingest([trade(T0 + 40, 6, 1, fresh.address)]);
    await c.waitFor((m) => m.sub === bars.sub && m.op === 'bar' && m.bar.c === 6);
    expect(c.of(trades.sub, 'trades')).toHaveLength(2);
    c.close();
  });

  it('sends prices and overview subscribers the state after the removal', async () => {
    const orphaned = trade(T0 - 5, 3);
    await live.ingest([trade(T0 - 10, 2), orphaned]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const p = await c.request({ op: 'subscribe', channel: 'prices', tokens: [token] });
    const o = await c.request({ op: 'subscribe', channel: 'overview', token });
    await c.waitFor((m) => m.op === 'overview');
    expect(c.of(p.sub, 'price')).toEqual([{ op: 'price', sub: p.sub, token, priceUsd: 3, priceChangePct24h: null, lastTradeAt: T0 - 5 }]);

    await retract([orphaned]);
    const price = await c.waitFor((m) => m.op === 'price' && m.priceUsd === 2, 3000);
    expect(price).toEqual({ op: 'price', sub: p.sub, token, priceUsd: 2, priceChangePct24h: null, lastTradeAt: T0 - 10 });
    const ov = await c.waitFor((m) => m.op === 'overview' && m.overview.priceUsd === 2, 3000);
    expect(ov).toEqual({ op: 'overview', sub: o.sub, overview: (await live.http.get(`/v1/token/${token}/overview`)).body });
    c.close();
  });
});
