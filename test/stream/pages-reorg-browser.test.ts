/**
 * The pages after a retraction (docs/api.md, Pages; Live stream: Reorgs), in headless Chromium:
 * a trade pushed to the chart of `/` and of `/embed/chart` is taken back out by the ingest's
 * `retract`, and each page redraws from history (the bar it made is gone, the close is the one
 * before) and the home page's trades table drops it. Screenshots of both in .tmp/screens/.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchBrowser } from '../browser/support.js';
import { startLive, written, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aMarket, aTrade } from '../helpers/builders.js';
import type { FakeClock } from '../helpers/make-test-app.js';

/** The real clock: the page asks /udf/time and charts up to now. */
const realClock: FakeClock = { now: () => Date.now(), set() {}, advance() {}, seconds: () => Math.floor(Date.now() / 1000) };

type Chart = { status: string; lastTime: number | null; lastClose: number | null; loads: number; bars: number; live?: { status: string } };
const SCREENS = '.tmp/screens';

describe.skipIf(!browserAvailable)('pages after a retraction', () => {
  let browser: Browser;
  let live: Live;
  let token: string;
  let market: string;
  /** The bar of the last kept trade, and its close. */
  let keptTime: number;

  beforeAll(async () => {
    mkdirSync(SCREENS, { recursive: true });
    [browser, live] = await Promise.all([launchBrowser(), startLive({ clock: realClock, env: { RATE_LIMIT_ANON: '100000/60' } })]);
    token = addToken(live, { symbol: 'REORG' }, {}).address;
    const m = aMarket(token);
    market = m.address;
    const now = realClock.seconds();
    // Kept trades end in an older minute, so the orphaned trade starts a bar of its own.
    keptTime = now - 300;
    await live.ingest([
      m,
      aTrade(token, { market, blockTime: now - 900, priceUsd: 1.5 }),
      aTrade(token, { market, blockTime: now - 600, priceUsd: 1.2 }),
      aTrade(token, { market, blockTime: keptTime, priceUsd: 1.6 }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await live?.stop();
  });

  const chartOf = (page: Page) => page.evaluate(() => ({ ...(window as unknown as { __chart: Chart }).__chart }));

  for (const [name, path] of [
    ['home', '/?symbol=REORG&resolution=1'],
    ['embed', '/embed/chart?symbol=REORG&resolution=1'],
  ] as const) {
    it(`${path.split('?')[0]} redraws without the removed trade's bar`, async () => {
      const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await page.goto(live.base + path);
      await page.waitForFunction(
        () =>
          (window as unknown as { __chart?: Chart }).__chart?.status === 'ready' && (window as unknown as { __chart?: Chart }).__chart?.live?.status === 'open',
        undefined,
        {
          timeout: 15_000,
        },
      );
      await page.waitForTimeout(300); // the page has subscribed (it follows the chart every 200 ms)
      const before = await chartOf(page);
      expect(before.lastClose).toBe(1.6);

      // A spike in a new minute, pushed live; then its block is orphaned.
      const t = realClock.seconds();
      const spike = aTrade(token, { market, blockTime: t, priceUsd: 7.777 });
      await live.ingest([spike]);
      await page.waitForFunction(() => (window as unknown as { __chart: Chart }).__chart.lastClose === 7.777, undefined, { timeout: 10_000 });
      if (name === 'home')
        await page.waitForFunction(() => document.querySelector('#trades')?.textContent?.includes('7.777') ?? false, undefined, { timeout: 10_000 });
      const pushed = await chartOf(page);
      expect(pushed.bars).toBe(before.bars + 1);

      await written(live);
      expect(
        (await live.services.ingest.retract({ trades: [{ signature: spike.signature, index: spike.index }], markets: [], tokens: [], records: [] })).removed,
      ).toBe(1);
      // The reset reloads history: the spike's bar is gone, the close is the last kept trade's.
      await page.waitForFunction(
        (n) => (window as unknown as { __chart: Chart }).__chart.loads === n && (window as unknown as { __chart: Chart }).__chart.status === 'ready',
        before.loads + 1,
        {
          timeout: 10_000,
        },
      );
      const after = await chartOf(page);
      expect(after.lastClose).toBe(1.6);
      expect(after.lastTime).toBe(keptTime - (keptTime % 60));
      expect(after.bars).toBe(before.bars);
      if (name === 'home') {
        await page.waitForFunction(() => !(document.querySelector('#trades')?.textContent?.includes('7.777') ?? true), undefined, { timeout: 10_000 });
        expect(await page.locator('#trades tr').count()).toBe(3);
      }
      await page.screenshot({ path: `${SCREENS}/reorg-${name}.png` });
      expect(errors).toEqual([]);
      await page.close();
    }, 60_000);
  }
});
