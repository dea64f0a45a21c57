/**
 * The four channels of /v1/stream over a real listening server and real ws clients: what comes
 * after `subscribed`, what an ingest sends, resume with since / sinceId, unsubscribe, backfill.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, settle, startLive, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import { hubOf } from '../../src/http/stream.js';

let live: Live;
let token: string;
/** The fake clock's start; 20 s past a minute, so minute bars start at T0 - 20, T0 + 40, T0 + 100. */
const T0 = 1_700_000_000;

beforeEach(async () => {
  live = await startLive();
  token = addToken(live, { symbol: 'LIVE' }).address;
});
afterEach(async () => live.stop());

const trade = (blockTime: number, priceUsd: number, volumeUsd = 1) => aTrade(token, { blockTime, priceUsd, volumeUsd });

describe('bars', () => {
  it('sends the newest bar, then a bar per ingest, and the previous bar once more with final:true when a new one starts', async () => {
    await live.ingest([trade(T0 + 10, 1), trade(T0 + 20, 2)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'bars', token: 'LIVE', resolution: '1' });
    expect(ok).toEqual({ op: 'subscribed', id: ok.id, sub: ok.sub, channel: 'bars', token, resolution: '1' });
    const first = await c.waitFor((m) => m.op === 'bar');
    expect(first).toEqual({ op: 'bar', sub: ok.sub, bar: { t: T0 - 20, o: 1, h: 2, l: 1, c: 2, v: 2 }, final: false });

    await live.ingest([trade(T0 + 30, 3, 5)]);
    const second = await c.waitFor((m) => m.op === 'bar' && m.bar.c === 3);
    expect(second).toEqual({ op: 'bar', sub: ok.sub, bar: { t: T0 - 20, o: 1, h: 3, l: 1, c: 3, v: 7 }, final: false });

    await live.ingest([trade(T0 + 50, 4)]); // T0 + 50 is in the next minute (T0 + 40)
    const fourth = await c.waitFor((m) => m.op === 'bar' && m.bar.t === T0 + 40);
    expect(fourth).toEqual({ op: 'bar', sub: ok.sub, bar: { t: T0 + 40, o: 4, h: 4, l: 4, c: 4, v: 1 }, final: false });
    // The bar at T0 - 20 did not change since it was sent: not sent again.
    expect(c.of(ok.sub, 'bar').map((m) => [m.bar.t, m.final])).toEqual([
      [T0 - 20, false],
      [T0 - 20, false],
      [T0 + 40, false],
    ]);

    await live.ingest([trade(T0 + 55, 5), trade(T0 + 100, 6)]); // changes T0 + 40, starts T0 + 100
    await c.waitFor((m) => m.op === 'bar' && m.bar.t === T0 + 100);
    expect(c.of(ok.sub, 'bar').slice(3)).toEqual([
      { op: 'bar', sub: ok.sub, bar: { t: T0 + 40, o: 4, h: 5, l: 4, c: 5, v: 2 }, final: true },
      { op: 'bar', sub: ok.sub, bar: { t: T0 + 100, o: 6, h: 6, l: 6, c: 6, v: 1 }, final: false },
    ]);
    c.close();
  });

  it('gives one batch that fills several bars at most one final:true (the bar last sent) and the newest bar', async () => {
    await live.ingest([trade(T0 + 10, 1)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
    await c.waitFor((m) => m.op === 'bar');
    // One batch: changes T0 - 20 (the bar sent), fills T0 + 40 and T0 + 100, starts T0 + 160.
    await live.ingest([trade(T0 + 15, 2), trade(T0 + 50, 3), trade(T0 + 110, 4), trade(T0 + 170, 5)]);
    await c.waitFor((m) => m.op === 'bar' && m.bar.t === T0 + 160);
    // A batch that only fills new bars: the bar last sent (T0 + 160) did not change, so no final.
    await live.ingest([trade(T0 + 230, 6), trade(T0 + 290, 7)]);
    await c.waitFor((m) => m.op === 'bar' && m.bar.t === T0 + 280);
    await settle();
    expect(c.of(ok.sub, 'bar')).toEqual([
      { op: 'bar', sub: ok.sub, bar: { t: T0 - 20, o: 1, h: 1, l: 1, c: 1, v: 1 }, final: false },
      { op: 'bar', sub: ok.sub, bar: { t: T0 - 20, o: 1, h: 2, l: 1, c: 2, v: 2 }, final: true },
      { op: 'bar', sub: ok.sub, bar: { t: T0 + 160, o: 5, h: 5, l: 5, c: 5, v: 1 }, final: false },
      { op: 'bar', sub: ok.sub, bar: { t: T0 + 280, o: 7, h: 7, l: 7, c: 7, v: 1 }, final: false },
    ]);
    c.close();
  });

  it('replays every bar from `since` (rounded down to its bar) ascending, the newest not final', async () => {
    await live.ingest([trade(T0 + 10, 1), trade(T0 + 70, 2), trade(T0 + 130, 3), trade(T0 + 190, 4)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1', since: T0 + 50 });
    await c.waitFor((m) => m.op === 'bar' && m.bar.t === T0 + 160);
    await settle();
    expect(c.of(ok.sub, 'bar').map((m) => [m.bar.t, m.bar.c, m.final])).toEqual([
      [T0 + 40, 2, true],
      [T0 + 100, 3, true],
      [T0 + 160, 4, false],
    ]);
    c.close();
  });

  it('sends reset backfill when a trade lands in a bar older than the newest sent, then continues', async () => {
    await live.ingest([trade(T0 + 10, 1), trade(T0 + 100, 2)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
    await c.waitFor((m) => m.op === 'bar');
    await live.ingest([trade(T0 + 5, 9)]); // the bar at T0 - 20, older than the newest (T0 + 100)
    await c.waitFor((m) => m.op === 'reset');
    await live.ingest([trade(T0 + 101, 3)]);
    await c.waitFor((m) => m.op === 'bar' && m.bar.c === 3);
    expect(c.of(ok.sub).slice(1)).toEqual([
      { op: 'reset', sub: ok.sub, reason: 'backfill' },
      { op: 'bar', sub: ok.sub, bar: { t: T0 + 100, o: 2, h: 2, l: 2, c: 2, v: 1 }, final: false },
      { op: 'bar', sub: ok.sub, bar: { t: T0 + 100, o: 2, h: 3, l: 2, c: 3, v: 2 }, final: false },
    ]);
    c.close();
  });
});

describe('trades', () => {
  it('sends the trades of each batch ascending by (blockTime, id), and replays id > sinceId in id order', async () => {
    await live.ingest([trade(T0 + 10, 1)]);
    const before = await live.services.repos.trades.maxId();
    await live.ingest([trade(T0 + 30, 2), trade(T0 + 20, 3)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token, sinceId: before });
    const replay = await c.waitFor((m) => m.op === 'trades');
    expect(replay.trades.map((t: any) => [t.id, t.priceUsd])).toEqual([
      [before + 1, 2],
      [before + 2, 3],
    ]);
    expect(Object.keys(replay.trades[0])).toEqual([
      'id',
      'signature',
      'index',
      'blockTime',
      'side',
      'priceUsd',
      'amount',
      'quoteAmount',
      'volumeUsd',
      'wallet',
      'market',
      'dex',
    ]);

    await live.ingest([trade(T0 + 50, 4), trade(T0 + 40, 5)]);
    await c.waitFor((m) => m.op === 'trades' && m.trades.length === 2 && m.trades[0].priceUsd === 5);
    expect(c.of(ok.sub, 'trades').map((m) => m.trades.map((t: any) => [t.id, t.blockTime]))).toEqual([
      [
        [before + 1, T0 + 30],
        [before + 2, T0 + 20],
      ],
      [
        [before + 4, T0 + 40],
        [before + 3, T0 + 50],
      ],
    ]);
    c.close();
  });

  it('answers reset overflow to a sinceId replay of more than 10000 trades, and nothing more', async () => {
    const rows = Array.from({ length: 10_001 }, (_, i) => trade(T0 + i, 1));
    await live.ingest(rows);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token, sinceId: 0 });
    await c.waitFor((m) => m.op === 'reset');
    await live.ingest([trade(T0 + 20_000, 2)]);
    await settle(200);
    expect(c.of(ok.sub)).toEqual([{ op: 'reset', sub: ok.sub, reason: 'overflow' }]);
    c.close();
  });
});

describe('prices and overview', () => {
  it('sends the current state once, then the state after a change', async () => {
    await live.ingest([trade(T0 - 10, 2)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const p = await c.request({ op: 'subscribe', channel: 'prices', tokens: [token, 'LIVE'] });
    expect(p.tokens).toEqual([token, token]); // one per name asked
    const o = await c.request({ op: 'subscribe', channel: 'overview', token });
    const price = await c.waitFor((m) => m.op === 'price');
    await settle();
    expect(c.of(p.sub, 'price')).toHaveLength(1); // the token once, though named twice
    expect(price).toEqual({ op: 'price', sub: p.sub, token, priceUsd: 2, priceChangePct24h: null, lastTradeAt: T0 - 10 });
    const ov = await c.waitFor((m) => m.op === 'overview');
    const http = await live.http.get(`/v1/token/${token}/overview`);
    expect(ov).toEqual({ op: 'overview', sub: o.sub, overview: http.body });

    await live.ingest([trade(T0 - 5, 3)]);
    const next = await c.waitFor((m) => m.op === 'price' && m.priceUsd === 3, 3000);
    expect(next).toEqual({ op: 'price', sub: p.sub, token, priceUsd: 3, priceChangePct24h: null, lastTradeAt: T0 - 5 });
    const ov2 = await c.waitFor((m) => m.op === 'overview' && m.overview.priceUsd === 3, 3000);
    expect(ov2.overview).toEqual((await live.http.get(`/v1/token/${token}/overview`)).body);
    c.close();
  });
  it('sends nothing again for a change that leaves the price and overview as they were (a flush of every token)', async () => {
    await live.ingest([trade(T0 - 10, 2)]);
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const p = await c.request({ op: 'subscribe', channel: 'prices', tokens: [token] });
    const o = await c.request({ op: 'subscribe', channel: 'overview', token });
    await c.waitFor((m) => m.op === 'overview');
    // What the change bus does when it comes up, or while it is down (src/coord/wiring.ts).
    live.store.notifyChange({ tokens: 'all' });
    await hubOf(live.app).idle();
    expect((await c.request({ op: 'ping' })).op).toBe('pong');
    await settle(1100); // past the once-a-second throttle of prices and overviews
    expect(c.of(p.sub).map((m) => m.op)).toEqual(['price']);
    expect(c.of(o.sub).map((m) => m.op)).toEqual(['overview']);
    c.close();
  });
});

describe('unsubscribe and ping', () => {
  it('answers unsubscribed and sends nothing more on that sub; ping gets pong', async () => {
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token });
    const un = await c.request({ op: 'unsubscribe', sub: ok.sub });
    expect(un).toEqual({ op: 'unsubscribed', id: un.id, sub: ok.sub });
    await live.ingest([trade(T0 + 1, 1)]);
    const pong = await c.request({ op: 'ping' });
    expect(pong).toEqual({ op: 'pong', id: pong.id });
    await settle();
    expect(c.of(ok.sub)).toEqual([]);
    c.close();
  });
});
