/**
 * /sdk/datafeed.js in headless Chromium, imported as an ES module by a partner page on another
 * origin (CORS for the module, /udf and the stream), driven as the Charting Library drives it:
 * onReady, resolveSymbol, getBars, two listeners on one symbol, a resolution switch, a dropped
 * connection. Skipped with one line when Chromium is missing (see test/browser/support.ts).
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchBrowser } from '../browser/support.js';
import { startLive, type Live } from '../stream/support.js';
import { fakeClock } from '../helpers/make-test-app.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import { history } from '../stream/chart-client.js';

declare global {
  interface Window {
    harness: {
      call(method: string, ...args: unknown[]): Promise<unknown[]>;
      subscribe(guid: string, symbolInfo: unknown, resolution: string): void;
      ticks: Record<string, { time: number; close: number }[]>;
      resets: Record<string, number>;
      drop(): number;
    };
  }
}

/** The partner page: imports the datafeed across origins and exposes a small driver. */
const harnessHtml = (api: string) => `<!doctype html><html><head><title>Partner chart</title></head><body>
<script type="module">
const sockets = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native { constructor(url) { super(url); sockets.push(this); } };
const { createDatafeed } = await import('${api}/sdk/datafeed.js');
const feed = createDatafeed({ baseUrl: '${api}' });
window.harness = {
  call: (method, ...args) => new Promise((resolve) => feed[method](...args, (...r) => resolve(r), (e) => resolve(['error', e]))),
  subscribe(guid, info, resolution) {
    this.ticks[guid] = [];
    feed.subscribeBars(info, resolution, (bar) => this.ticks[guid].push(bar), guid, () => (this.resets[guid] = (this.resets[guid] || 0) + 1));
  },
  unsubscribe: (guid) => feed.unsubscribeBars(guid),
  ticks: {}, resets: {},
  drop() { sockets.at(-1).close(); return sockets.length; },
};
document.title = 'ready';
</script></body></html>`;

const T0 = Math.floor(Date.now() / 1000 / 3600) * 3600 - 7200; // two hours ago, on the hour

describe.skipIf(!browserAvailable)('the datafeed in headless Chromium', () => {
  let browser: Browser;
  let live: Live;
  let partner: Server;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    [browser, live] = await Promise.all([launchBrowser(), startLive({ clock: fakeClock(Date.now()) })]);
    token = addToken(live, { symbol: 'CHRM' }).address;
    live.ingest([aTrade(token, { blockTime: T0 + 10, priceUsd: 1 }), aTrade(token, { blockTime: T0 + 70, priceUsd: 2 })]);
    partner = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(harnessHtml(live.base));
    }).listen(0, '127.0.0.1');
    await once(partner, 'listening');
    page = await browser.newPage();
    await page.goto(`http://partner.test:${(partner.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 15_000 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    partner?.close();
    await live?.stop();
  });

  it('charts history and live bars for two listeners, across a resolution switch and a dropped connection', async () => {
    const [config] = (await page.evaluate(() => window.harness.call('onReady'))) as [{ supported_resolutions: string[] }];
    expect(config.supported_resolutions).toContain('15');
    const [info] = (await page.evaluate(() => window.harness.call('resolveSymbol', 'CHRM'))) as [{ ticker: string }];
    expect(info.ticker).toBe(token);
    const [bars] = (await page.evaluate(([i, from, to]) => window.harness.call('getBars', i, '1', { from, to, countBack: 300, firstDataRequest: true }), [
      info,
      T0 - 3600,
      T0 + 3600,
    ] as const)) as [{ time: number; close: number }[]];
    expect(bars.map((b) => [b.time, b.close])).toEqual([
      [T0 * 1000, 1],
      [(T0 + 60) * 1000, 2],
    ]);

    await page.evaluate((i) => (window.harness.subscribe('a', i, '1'), window.harness.subscribe('b', i, '1')), info);
    await page.waitForFunction(() => window.harness.ticks.a!.length > 0 && window.harness.ticks.b!.length > 0);
    live.ingest([aTrade(token, { blockTime: T0 + 130, priceUsd: 3 })]);
    await page.waitForFunction(() => window.harness.ticks.a!.length === 2 && window.harness.ticks.b!.length === 2);
    const ticks = await page.evaluate(() => window.harness.ticks);
    expect(ticks.a!.map((b) => [b.time, b.close])).toEqual([
      [(T0 + 60) * 1000, 2],
      [(T0 + 120) * 1000, 3],
    ]);
    expect(ticks.b).toEqual(ticks.a);

    // Resolution switch on listener b, then the connection drops and trades arrive meanwhile.
    await page.evaluate((i) => ((window.harness as any).unsubscribe('b'), window.harness.subscribe('c', i, '15')), info);
    await page.waitForFunction(() => window.harness.ticks.c!.length === 1);
    expect(await page.evaluate(() => window.harness.drop())).toBe(1);
    live.ingest([aTrade(token, { blockTime: T0 + 140, priceUsd: 4 }), aTrade(token, { blockTime: T0 + 1000, priceUsd: 5 })]);
    await page.waitForFunction(() => window.harness.ticks.c!.some((b) => b.close === 5), undefined, { timeout: 15_000 });
    const h15 = await history(live, token, '15');
    const c = await page.evaluate(() => window.harness.ticks.c!);
    expect(c.at(-1)).toEqual({ time: h15.at(-1)!.t * 1000, open: h15.at(-1)!.o, high: h15.at(-1)!.h, low: h15.at(-1)!.l, close: 5, volume: h15.at(-1)!.v });
    // The resumed subscription replays from its last bar: each bar's last tick is the bar of history.
    const lastOf = new Map(c.map((b) => [b.time, b]));
    expect([...lastOf.values()]).toEqual(h15.map((b) => ({ time: b.t * 1000, open: b.o, high: b.h, low: b.l, close: b.c, volume: b.v })));
    const a = await page.evaluate(() => window.harness.ticks.a!);
    expect(a.at(-1)).toMatchObject({ time: (T0 + 960) * 1000, close: 5 });
  }, 60_000);
});
