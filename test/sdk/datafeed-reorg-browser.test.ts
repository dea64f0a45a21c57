/**
 * /sdk/datafeed.js in headless Chromium after a retraction (docs/api.md, Live stream: Reorgs):
 * a chart's bars subscription gets `reset` with reason `reorg`, and the datafeed calls that
 * listener's onResetCacheNeededCallback, asynchronously, once; the bar after the reset (older than
 * the last one pushed) and the live bars after it reach onTick. A listener of another token is
 * left alone. Skipped with one line when Chromium is missing (see test/browser/support.ts).
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchBrowser } from '../browser/support.js';
import { startLive, written, type Live } from '../stream/support.js';
import { fakeClock } from '../helpers/make-test-app.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';

type Tick = { time: number; close: number };
type Harness = {
  call(method: string, ...args: unknown[]): Promise<unknown[]>;
  subscribe(guid: string, symbolInfo: unknown, resolution: string): void;
  /** Per listener, in order: its ticks and its resets (as 'reset'), as the library would see them. */
  seen: Record<string, (Tick | 'reset')[]>;
  /** Whether a reset callback ran inside subscribeBars' message handler (it must not: asynchronous). */
  syncResets: number;
};

/** The partner page: imports the datafeed across origins and records what each listener is called with. */
const harnessHtml = (api: string) => `<!doctype html><html><head><title>Partner chart</title></head><body>
<script type="module">
const { createDatafeed } = await import('${api}/sdk/datafeed.js');
const feed = createDatafeed({ baseUrl: '${api}' });
let inMessage = false;
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  set onmessage(fn) { super.onmessage = (ev) => { inMessage = true; try { fn(ev); } finally { inMessage = false; } }; }
};
window.harness = {
  call: (method, ...args) => new Promise((resolve) => feed[method](...args, (...r) => resolve(r), (e) => resolve(['error', e]))),
  subscribe(guid, info, resolution) {
    this.seen[guid] = [];
    feed.subscribeBars(info, resolution, (bar) => this.seen[guid].push({ time: bar.time, close: bar.close }), guid, () => {
      if (inMessage) this.syncResets++;
      this.seen[guid].push('reset');
    });
  },
  seen: {}, syncResets: 0,
};
document.title = 'ready';
</script></body></html>`;

const T0 = Math.floor(Date.now() / 1000 / 3600) * 3600 - 7200; // two hours ago, on the hour

describe.skipIf(!browserAvailable)('the datafeed in headless Chromium after a retraction', () => {
  let browser: Browser;
  let live: Live;
  let partner: Server;
  let page: Page;
  let token: string;
  let other: string;

  beforeAll(async () => {
    [browser, live] = await Promise.all([launchBrowser(), startLive({ clock: fakeClock(Date.now()) })]);
    token = addToken(live, { symbol: 'RORG' }).address;
    other = addToken(live, { symbol: 'STAY' }).address;
    live.ingest([
      aTrade(token, { blockTime: T0 + 10, priceUsd: 1 }),
      aTrade(token, { blockTime: T0 + 70, priceUsd: 2 }),
      aTrade(other, { blockTime: T0 + 10, priceUsd: 9 }),
    ]);
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

  const harness = () => page.evaluate(() => ({ ...(window as unknown as { harness: Harness }).harness }));

  it('calls onResetCacheNeededCallback on a reorg reset, then takes the bars that follow', async () => {
    const [info] = (await page.evaluate(() => (window as unknown as { harness: Harness }).harness.call('resolveSymbol', 'RORG'))) as [unknown];
    const [stay] = (await page.evaluate(() => (window as unknown as { harness: Harness }).harness.call('resolveSymbol', 'STAY'))) as [unknown];
    await page.evaluate(
      ([i, s]) => {
        const h = (window as unknown as { harness: Harness }).harness;
        h.subscribe('a', i, '1');
        h.subscribe('b', s, '1');
      },
      [info, stay] as const,
    );
    await page.waitForFunction(() => {
      const seen = (window as unknown as { harness: Harness }).harness.seen;
      return seen.a!.length === 1 && seen.b!.length === 1;
    });

    const orphaned = aTrade(token, { blockTime: T0 + 130, priceUsd: 5 });
    live.ingest([orphaned]);
    await page.waitForFunction(() => (window as unknown as { harness: Harness }).harness.seen.a!.length === 2);
    await written(live);
    await live.services.ingest.retract({ trades: [{ signature: orphaned.signature, index: orphaned.index }], markets: [], tokens: [], records: [] });
    await page.waitForFunction(() => (window as unknown as { harness: Harness }).harness.seen.a!.length === 4);
    // The new branch: a trade in the minute the orphaned one had started.
    live.ingest([aTrade(token, { blockTime: T0 + 150, priceUsd: 3 })]);
    await page.waitForFunction(() => (window as unknown as { harness: Harness }).harness.seen.a!.length === 5);

    const h = await harness();
    expect(h.seen.a).toEqual([
      { time: (T0 + 60) * 1000, close: 2 },
      { time: (T0 + 120) * 1000, close: 5 },
      'reset',
      { time: (T0 + 60) * 1000, close: 2 },
      { time: (T0 + 120) * 1000, close: 3 },
    ]);
    expect(h.seen.b).toEqual([{ time: T0 * 1000, close: 9 }]);
    expect(h.syncResets).toBe(0);

    // History after the reset, as the library refetches it: the orphaned bar is gone.
    const [bars] = (await page.evaluate(
      ([i, from, to]) => (window as unknown as { harness: Harness }).harness.call('getBars', i, '1', { from, to, countBack: 300, firstDataRequest: true }),
      [info, T0 - 3600, T0 + 3600] as const,
    )) as [Tick[]];
    expect(bars.map((b) => [b.time, b.close])).toEqual([
      [T0 * 1000, 1],
      [(T0 + 60) * 1000, 2],
      [(T0 + 120) * 1000, 3],
    ]);
  }, 60_000);
});
