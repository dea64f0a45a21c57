/**
 * /sdk/datafeed.js driven the way the Charting Library drives a datafeed, in Node against the
 * real server: onReady, resolveSymbol, getBars, subscribeBars with two listeners on one symbol,
 * a resolution switch, a dropped connection (reconnect and resubscribe with since), a backfill
 * (onResetCacheNeededCallback), quotes. Callbacks must come asynchronously.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createDatafeed, type Bar, type HistoryMetadata } from '../../src/sdk/datafeed.js';
import { startLive, type Live } from '../stream/support.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import { history } from '../stream/chart-client.js';

let live: Live;
let token: string;
const T0 = 1_700_000_000; // 20 s past a minute

/** ws, remembering every socket made, so a test can cut them as a network drop would. */
const sockets: WebSocket[] = [];
class TrackedWebSocket extends WebSocket {
  constructor(url: string) {
    super(url);
    sockets.push(this);
  }
}

beforeEach(async () => {
  live = await startLive();
  live.clock.set((T0 + 3600) * 1000); // the trades below are within the last 24 h
  token = addToken(live, { symbol: 'HARN' }).address;
  live.ingest([aTrade(token, { blockTime: T0 + 10, priceUsd: 1 }), aTrade(token, { blockTime: T0 + 50, priceUsd: 2 })]);
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate();
  await live.stop();
});

/** A promise of the callback's next call, and whether it came asynchronously. */
function callback<T extends unknown[]>(): { fn: (...a: T) => void; next: () => Promise<T>; calls: T[] } {
  const calls: T[] = [];
  let wake: (() => void) | null = null;
  return {
    calls,
    fn: (...a: T) => {
      calls.push(a);
      wake?.();
    },
    next: async () => {
      const n = calls.length;
      for (let i = 0; i < 200 && calls.length <= n; i++) await new Promise<void>((r) => ((wake = r), setTimeout(r, 50)));
      if (calls.length <= n) throw new Error('callback not called');
      return calls[n]!;
    },
  };
}

const until = async (cond: () => boolean, ms = 10_000) => {
  for (const end = Date.now() + ms; !cond();) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 20));
  }
};

const bar = (b: { t: number; o: number; h: number; l: number; c: number; v: number }): Bar => ({
  time: b.t * 1000,
  open: b.o,
  high: b.h,
  low: b.l,
  close: b.c,
  volume: b.v,
});

describe('the datafeed as the Charting Library uses it', () => {
  it('serves itself and its types as public routes with CORS', async () => {
    const js = await live.http.get('/sdk/datafeed.js').set('Origin', 'https://partner.example');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['access-control-allow-origin']).toBe('*');
    expect(js.text).toContain('export function createDatafeed');
    const dts = await live.http.get('/sdk/datafeed.d.ts');
    expect(dts.status).toBe(200);
    expect(dts.text).toContain('export function createDatafeed(options: DatafeedOptions): Datafeed;');
  });

  it('onReady, resolveSymbol, getBars and getServerTime answer asynchronously with the /udf data', async () => {
    const feed = createDatafeed({ baseUrl: live.base, WebSocket: TrackedWebSocket });
    let returned = false;
    const ready = callback<[Record<string, unknown>]>();
    feed.onReady((c) => {
      expect(returned).toBe(true);
      ready.fn(c);
    });
    returned = true;
    const [config] = await ready.next();
    expect(config.supported_resolutions).toEqual(['1S', '5S', '15S', '30S', '1', '5', '15', '30', '60', '240', '1D', '1W', '1M']);

    const resolved = callback<[any]>();
    feed.resolveSymbol('harn', resolved.fn, () => {});
    const [info] = await resolved.next();
    expect(info.ticker).toBe(token);
    const failed = callback<[string]>();
    feed.resolveSymbol('NOSUCH', () => {}, failed.fn);
    expect(await failed.next()).toEqual(['unknown_symbol']);

    const bars = callback<[Bar[], HistoryMetadata]>();
    feed.getBars(info, '1', { from: T0 - 3600, to: T0 + 3600, countBack: 300, firstDataRequest: true }, bars.fn, () => {});
    const [got, meta] = await bars.next();
    expect(got).toEqual((await history(live, token, '1')).map(bar));
    expect(meta).toEqual({ noData: false });
    const empty = callback<[Bar[], HistoryMetadata]>();
    feed.getBars(info, '1', { from: T0 + 7200, to: T0 + 9000, countBack: 0, firstDataRequest: false }, empty.fn, () => {});
    expect(await empty.next()).toEqual([[], { noData: true, nextTime: (T0 + 40) * 1000 }]);

    const found = callback<[any[]]>();
    feed.searchSymbols('HAR', '', 'crypto', found.fn);
    const [items] = await found.next();
    expect(items).toEqual((await live.http.get('/udf/search').query({ query: 'HAR', type: 'crypto', exchange: '', limit: 30 })).body);
    expect(items.map((i: any) => i.ticker)).toContain(token);

    const time = callback<[number]>();
    feed.getServerTime(time.fn);
    expect(await time.next()).toEqual([live.clock.seconds()]);
  });

  it('two listeners on one symbol, a resolution switch, a dropped connection and a backfill', async () => {
    const feed = createDatafeed({ baseUrl: live.base, WebSocket: TrackedWebSocket });
    const resolved = callback<[any]>();
    feed.resolveSymbol(token, resolved.fn, () => {});
    const [info] = await resolved.next();
    const a = callback<[Bar]>();
    const b = callback<[Bar]>();
    const resetB = callback<[]>();
    feed.subscribeBars(info, '1', a.fn, 'guid-a', () => {});
    feed.subscribeBars(info, '1', b.fn, 'guid-b', resetB.fn);
    // Each gets the newest bar on its own subscription.
    expect(await a.next()).toEqual([{ time: (T0 + 40) * 1000, open: 2, high: 2, low: 2, close: 2, volume: 10 }]);
    expect(await b.next()).toEqual([{ time: (T0 + 40) * 1000, open: 2, high: 2, low: 2, close: 2, volume: 10 }]);
    expect(sockets).toHaveLength(1); // one shared connection

    live.ingest([aTrade(token, { blockTime: T0 + 60, priceUsd: 3 })]);
    expect(await a.next()).toEqual([{ time: (T0 + 40) * 1000, open: 2, high: 3, low: 2, close: 3, volume: 20 }]);
    expect(await b.next()).toEqual([{ time: (T0 + 40) * 1000, open: 2, high: 3, low: 2, close: 3, volume: 20 }]);

    feed.unsubscribeBars('guid-a');
    live.ingest([aTrade(token, { blockTime: T0 + 70, priceUsd: 4 })]);
    await b.next();
    await new Promise((r) => setTimeout(r, 100));
    expect(a.calls).toHaveLength(2); // nothing after unsubscribing

    // Backfill into an older bar: b is told to refetch.
    live.ingest([aTrade(token, { blockTime: T0 - 100, priceUsd: 9 })]);
    await resetB.next();

    // Resolution switch, as the library does it: unsubscribe, then subscribe with a new guid.
    feed.unsubscribeBars('guid-b');
    const c = callback<[Bar]>();
    feed.subscribeBars(info, '5', c.fn, 'guid-c', () => {});
    const [first5] = await c.next();
    const h5 = await history(live, token, '5');
    expect(first5).toEqual(bar(h5.at(-1)!));

    // The network drops; trades arrive meanwhile; the feed reconnects and resubscribes with since.
    expect(sockets).toHaveLength(1); // still the one connection across the switch
    sockets[0]!.terminate();
    live.ingest([aTrade(token, { blockTime: T0 + 80, priceUsd: 5 }), aTrade(token, { blockTime: T0 + 400, priceUsd: 6 })]);
    const newest5 = (await history(live, token, '5')).at(-1)!;
    await until(() => c.calls.some(([x]) => x.time === newest5.t * 1000));
    expect(sockets).toHaveLength(2);
    const ticks = c.calls.slice(1).map(([x]) => x);
    const h = await history(live, token, '5');
    // The bar that changed while away, then the new one, equal to history.
    expect(ticks).toEqual(h.filter((x) => x.t >= first5.time / 1000).map(bar));
    feed.unsubscribeBars('guid-c');
  }, 30_000);

  it('getQuotes and subscribeQuotes deliver items as /udf/quotes gives them', async () => {
    const feed = createDatafeed({ baseUrl: live.base, WebSocket: TrackedWebSocket });
    const quotes = callback<[any[]]>();
    feed.getQuotes(['HARN'], quotes.fn, () => {});
    const [items] = await quotes.next();
    expect(items).toEqual((await live.http.get('/udf/quotes').query({ symbols: 'HARN' })).body.d);

    const rt = callback<[any[]]>();
    feed.subscribeQuotes(['HARN'], [token], rt.fn, 'q1');
    const [firstItems] = await rt.next();
    expect(firstItems.map((i: any) => [i.n, i.v.lp])).toEqual([
      ['HARN', 2],
      [token, 2],
    ]);
    live.ingest([aTrade(token, { blockTime: T0 + 90, priceUsd: 7 })]);
    const [next] = await rt.next();
    expect(next).toEqual((await live.http.get('/udf/quotes').query({ symbols: `HARN,${token}` })).body.d);
    expect(next.map((i: any) => i.v.lp)).toEqual([7, 7]);
    feed.unsubscribeQuotes('q1');
  });
});
