/**
 * The chart features of issue 32 through /sdk/datafeed.js in headless Chromium, driven as the
 * Charting Library drives it (the licensed library itself is not available here): the currency menu
 * switching a token between USD and MCAP (resolveSymbol with the extension's currencyCode, then
 * getBars and subscribeBars on that symbol info), and getMarks of the wallet given to
 * createDatafeed. Skipped with one line when Chromium is missing (see test/browser/support.ts).
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
import { aTrade, anAddress } from '../helpers/builders.js';

declare global {
  interface Window {
    chartHarness: {
      call(method: string, ...args: unknown[]): Promise<unknown[]>;
      subscribe(guid: string, symbolInfo: unknown, resolution: string): void;
      ticks: Record<string, { time: number; close: number }[]>;
    };
  }
}

/** The partner page: a datafeed following one wallet, and a small driver. */
const harnessHtml = (api: string, wallet: string) => `<!doctype html><html><head><title>Partner chart</title></head><body>
<script type="module">
const { createDatafeed } = await import('${api}/sdk/datafeed.js');
const feed = createDatafeed({ baseUrl: '${api}', wallet: '${wallet}' });
const plain = createDatafeed({ baseUrl: '${api}' });
window.chartHarness = {
  call: (method, ...args) => new Promise((resolve) => {
    // The library's own argument orders: the extension after the callbacks, the resolution after onData.
    if (method === 'plainOnReady') plain.onReady((c) => resolve([c]));
    else if (method === 'resolveSymbol') feed.resolveSymbol(args[0], (i) => resolve([i]), (e) => resolve(['error', e]), args[1]);
    else if (method === 'getMarks') feed.getMarks(args[0], args[1], args[2], (m) => resolve([m]), args[3]);
    else feed[method](...args, (...r) => resolve(r), (e) => resolve(['error', e]));
  }),
  subscribe(guid, info, resolution) {
    this.ticks[guid] = [];
    feed.subscribeBars(info, resolution, (bar) => this.ticks[guid].push(bar), guid, () => {});
  },
  ticks: {},
};
document.title = 'ready';
</script></body></html>`;

const T0 = Math.floor(Date.now() / 1000 / 3600) * 3600 - 7200; // two hours ago, on the hour
const SUPPLY = 3_000_000;

describe.skipIf(!browserAvailable)('the datafeed in headless Chromium: MCAP and marks', () => {
  let browser: Browser;
  let live: Live;
  let partner: Server;
  let page: Page;
  let token: string;
  const wallet = anAddress('wal');

  beforeAll(async () => {
    [browser, live] = await Promise.all([launchBrowser(), startLive({ clock: fakeClock(Date.now()) })]);
    token = addToken(live, { symbol: 'MCP', circulatingSupply: SUPPLY }).address;
    live.ingest([
      aTrade(token, { blockTime: T0 + 10, priceUsd: 0.001, wallet }),
      aTrade(token, { blockTime: T0 + 70, priceUsd: 0.002, side: 'sell', wallet }),
      aTrade(token, { blockTime: T0 + 80, priceUsd: 0.0025 }),
    ]);
    partner = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(harnessHtml(live.base, wallet));
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

  it('switches the chart between USD and MCAP from the currency menu, history and live bars alike', async () => {
    const [usd] = (await page.evaluate(() => window.chartHarness.call('resolveSymbol', 'MCP'))) as [
      { currency_code: string; currency_codes: string[]; pricescale: number },
    ];
    expect(usd).toMatchObject({ currency_code: 'USD', currency_codes: ['USD', 'MCAP'], pricescale: 1_000_000 });
    // The library resolves again with the menu's choice, then asks for bars on that symbol info.
    const [cap] = (await page.evaluate(() => window.chartHarness.call('resolveSymbol', 'MCP', { currencyCode: 'MCAP' }))) as [
      { currency_code: string; pricescale: number },
    ];
    expect(cap).toMatchObject({ currency_code: 'MCAP', pricescale: 100 });
    const period = { from: T0 - 3600, to: T0 + 3600, countBack: 300, firstDataRequest: true };
    const [capBars] = (await page.evaluate(([i, p]) => window.chartHarness.call('getBars', i, '1', p), [cap, period] as const)) as [
      { time: number; close: number }[],
    ];
    expect(capBars.map((b) => [b.time, b.close])).toEqual([
      [T0 * 1000, 0.001 * SUPPLY],
      [(T0 + 60) * 1000, 0.0025 * SUPPLY],
    ]);
    const [usdBars] = (await page.evaluate(([i, p]) => window.chartHarness.call('getBars', i, '1', p), [usd, period] as const)) as [
      { time: number; close: number }[],
    ];
    expect(usdBars.map((b) => b.close)).toEqual([0.001, 0.0025]);

    await page.evaluate((i) => window.chartHarness.subscribe('cap', i, '1'), cap);
    await page.evaluate((i) => window.chartHarness.subscribe('usd', i, '1'), usd);
    await page.waitForFunction(() => window.chartHarness.ticks.cap!.length > 0 && window.chartHarness.ticks.usd!.length > 0);
    live.ingest([aTrade(token, { blockTime: T0 + 130, priceUsd: 0.004 })]);
    await page.waitForFunction(
      () => window.chartHarness.ticks.cap!.some((b) => b.time % 60_000 === 0 && b.close > 10_000) && window.chartHarness.ticks.usd!.length === 2,
    );
    const ticks = await page.evaluate(() => window.chartHarness.ticks);
    expect(ticks.cap!.at(-1)).toMatchObject({ time: (T0 + 120) * 1000, close: 0.004 * SUPPLY });
    expect(ticks.usd!.at(-1)).toMatchObject({ time: (T0 + 120) * 1000, close: 0.004 });
  }, 60_000);

  it("marks the wallet's trades with getMarks, and says no marks without a wallet", async () => {
    const [config] = (await page.evaluate(() => window.chartHarness.call('onReady'))) as [{ supports_marks: boolean }];
    expect(config.supports_marks).toBe(true);
    const [plain] = (await page.evaluate(() => window.chartHarness.call('plainOnReady'))) as [{ supports_marks: boolean }];
    expect(plain.supports_marks).toBe(false);
    const [info] = (await page.evaluate(() => window.chartHarness.call('resolveSymbol', 'MCP'))) as [unknown];
    const [marks] = (await page.evaluate(([i, from, to]) => window.chartHarness.call('getMarks', i, from, to, '1'), [info, T0 - 3600, T0 + 3600] as const)) as [
      { time: number; label: string; color: string; text: string }[],
    ];
    expect(marks.map((m) => [m.time, m.label, m.color])).toEqual([
      [T0 + 10, 'B', '#26a69a'],
      [T0 + 70, 'S', '#ef5350'],
    ]);
    expect(marks[1]!.text).toMatch(/^Sell 10 MCP at \$0\.002 \(\$10\) on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  }, 60_000);
});
