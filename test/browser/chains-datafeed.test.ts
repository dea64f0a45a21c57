/**
 * /sdk/datafeed.js in headless Chromium against a deployment of several chains (docs/chains.md):
 * a partner page charts `base:0x…` and gets Base's bars, live ones included, never Ethereum's at
 * the same address; search lists both with their chains; quotes follow each chain's own token.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchBrowser } from './support.js';
import { startLive, written, type Live } from '../stream/support.js';
import { CHAINS_ENV, HOUR, WETH, ingestTwoChains, liveTrade } from '../chains/support.js';

declare global {
  interface Window {
    feed: {
      call(method: string, ...args: unknown[]): Promise<unknown[]>;
      subscribe(guid: string, symbolInfo: unknown, resolution: string): void;
      quotes(guid: string, names: string[]): void;
      ticks: Record<string, { time: number; close: number }[]>;
      quoted: Record<string, { n: string; v: { lp: number } }[]>;
    };
  }
}

/** The partner page: imports the datafeed across origins and exposes a small driver. */
const partnerHtml = (api: string) => `<!doctype html><html><head><title>Partner chart</title></head><body>
<script type="module">
const { createDatafeed } = await import('${api}/sdk/datafeed.js');
const feed = createDatafeed({ baseUrl: '${api}' });
window.feed = {
  call: (method, ...args) => new Promise((resolve) => feed[method](...args, (...r) => resolve(r), (e) => resolve(['error', e]))),
  subscribe(guid, info, resolution) {
    this.ticks[guid] = [];
    feed.subscribeBars(info, resolution, (bar) => this.ticks[guid].push(bar), guid, () => {});
  },
  quotes(guid, names) {
    this.quoted[guid] = [];
    feed.subscribeQuotes(names, [], (items) => this.quoted[guid].push(...items), guid);
  },
  ticks: {}, quoted: {},
};
document.title = 'ready';
</script></body></html>`;

describe.skipIf(!browserAvailable)('the datafeed charting chain:address in headless Chromium', () => {
  let browser: Browser;
  let live: Live;
  let partner: Server;
  let page: Page;

  beforeAll(async () => {
    [browser, live] = await Promise.all([launchBrowser(), startLive({ env: CHAINS_ENV })]);
    ingestTwoChains(live);
    await written(live);
    partner = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(partnerHtml(live.base));
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

  const resolve = async (name: string) => ((await page.evaluate((s) => window.feed.call('resolveSymbol', s), name)) as [Record<string, unknown>])[0];
  const bars = async (info: Record<string, unknown>) =>
    (
      (await page.evaluate(([i, from, to]) => window.feed.call('getBars', i, '60', { from, to, countBack: 0, firstDataRequest: true }), [
        info,
        HOUR - 3600,
        HOUR + 3600,
      ] as const)) as [{ time: number; open: number; high: number; low: number; close: number; volume: number }[]]
    )[0];

  it("resolves base:0x… to Base's token and gets Base's bars, then Ethereum's for ethereum:0x…", async () => {
    const base = await resolve(`base:${WETH}`);
    expect([base.ticker, base.description]).toEqual([`base:${WETH}`, 'Wrapped Ether (base)']);
    expect(await bars(base)).toEqual([{ time: HOUR * 1000, open: 3000, high: 3100, low: 3000, close: 3100, volume: 61 }]);
    const eth = await resolve(`ethereum:${WETH}`);
    expect(eth.ticker).toBe(`ethereum:${WETH}`);
    expect(await bars(eth)).toEqual([{ time: HOUR * 1000, open: 3500, high: 3500, low: 3500, close: 3500, volume: 70 }]);
    // Base again, after Ethereum's answer was cached: still Base's.
    expect((await bars(base))[0]!.close).toBe(3100);
  });

  it('lists both tokens of the symbol in search, each with its chain and its key as ticker', async () => {
    const [items] = (await page.evaluate(() => window.feed.call('searchSymbols', 'WETH', '', 'crypto'))) as [Record<string, string>[]];
    expect(items.map((i) => [i.ticker, i.chain, i.description])).toEqual([
      [`ethereum:${WETH}`, 'ethereum', 'Wrapped Ether (ethereum)'],
      [`base:${WETH}`, 'base', 'Wrapped Ether (base)'],
    ]);
  });

  it("streams Base's live bars to the Base chart only, and quotes each chain's token", async () => {
    const base = await resolve(`base:${WETH}`);
    const eth = await resolve(`ethereum:${WETH}`);
    await page.evaluate(([b, e]) => (window.feed.subscribe('base', b, '60'), window.feed.subscribe('eth', e, '60')), [base, eth] as const);
    await page.evaluate(() => window.feed.quotes('q', [`base:0x4200000000000000000000000000000000000006`]));
    await page.waitForFunction(() => window.feed.ticks.base!.length === 1 && window.feed.ticks.eth!.length === 1);

    live.ingest([liveTrade('base', HOUR + 300, 3200)]);
    await page.waitForFunction(() => window.feed.ticks.base!.length === 2);
    // Ethereum's trade after Base's: had the Ethereum chart heard Base's, it would come first.
    live.ingest([liveTrade('ethereum', HOUR + 400, 3600)]);
    await page.waitForFunction(() => window.feed.ticks.eth!.length === 2);
    const ticks = await page.evaluate(() => window.feed.ticks);
    expect(ticks.base!.map((b) => b.close)).toEqual([3100, 3200]);
    expect(ticks.eth!.map((b) => b.close)).toEqual([3500, 3600]);

    // The Base quote subscription follows Base's token: its figures, never Ethereum's at the same address.
    await page.waitForFunction(() => window.feed.quoted.q!.some((q) => q.v.lp === 3200), undefined, { timeout: 15_000 });
    const quoted = await page.evaluate(() => window.feed.quoted.q!);
    expect(new Set(quoted.map((q) => q.n))).toEqual(new Set([`base:${WETH}`]));
    expect(quoted.every((q) => q.v.lp === 3200 || q.v.lp === 3100)).toBe(true);
  }, 60_000);
});
