/**
 * The pages live from /v1/stream in headless Chromium: a trade ingested shows on the chart of `/`
 * and of `/embed/chart` as a pushed bar, without any polling of /udf/history, and the home page's
 * trades table follows. (Without a stream the pages poll: test/browser/pages.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchBrowser } from '../browser/support.js';
import { startLive, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aMarket, aTrade } from '../helpers/builders.js';
import type { FakeClock } from '../helpers/make-test-app.js';

/** The real clock: the page asks /udf/time and charts up to now. */
const realClock: FakeClock = { now: () => Date.now(), set() {}, advance() {}, seconds: () => Math.floor(Date.now() / 1000) };

type Chart = { status: string; lastTime: number | null; lastClose: number | null; refreshes: number; live?: { status: string; pushes: number; polls: number } };
// The pages publish their chart state on window.__chart; functions run in the page read it inline.

describe.skipIf(!browserAvailable)('pages live from the stream', () => {
  let browser: Browser;
  let live: Live;
  let token: string;
  let market: string;

  beforeAll(async () => {
    [browser, live] = await Promise.all([launchBrowser(), startLive({ clock: realClock, env: { RATE_LIMIT_ANON: '100000/60' } })]);
    token = addToken(live, { symbol: 'PAGE' }, {}).address;
    const m = aMarket(token);
    market = m.address;
    const now = realClock.seconds();
    await live.ingest([m, aTrade(token, { market, blockTime: now - 600, priceUsd: 1.5 }), aTrade(token, { market, blockTime: now - 300, priceUsd: 1.6 })]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await live?.stop();
  });

  async function open(path: string): Promise<{ page: Page; errors: string[]; polls: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    const errors: string[] = [];
    const polls: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('request', (r) => r.url().includes('countback=2') && polls.push(r.url()));
    await page.goto(live.base + path);
    await page.waitForFunction(
      () =>
        (window as unknown as { __chart?: Chart }).__chart?.status === 'ready' && (window as unknown as { __chart?: Chart }).__chart?.live?.status === 'open',
      undefined,
      { timeout: 15_000 },
    );
    return { page, errors, polls };
  }

  for (const path of ['/?symbol=PAGE&resolution=1', '/embed/chart?symbol=PAGE&resolution=1']) {
    it(`${path.split('?')[0]} shows a newly ingested trade as a pushed bar`, async () => {
      const { page, errors, polls } = await open(path);
      await page.waitForTimeout(300); // the page has subscribed (it follows the chart every 200 ms)
      const price = Number((2 + Math.random()).toFixed(4));
      const t = realClock.seconds();
      await live.ingest([aTrade(token, { market, blockTime: t, priceUsd: price })]);
      await page.waitForFunction((p) => (window as unknown as { __chart: Chart }).__chart.lastClose === p, price, { timeout: 10_000 });
      const state = await page.evaluate(() => {
        const c = (window as unknown as { __chart: Chart }).__chart;
        return { ...c, live: { ...c.live! } };
      });
      expect(state.lastTime).toBe(t - (t % 60));
      expect(state.lastClose).toBe(price);
      expect(state.live.pushes).toBeGreaterThanOrEqual(1);
      expect(state.live.polls).toBe(0);
      expect(state.refreshes).toBe(0);
      expect(polls).toEqual([]);
      if (path.startsWith('/?')) {
        await page.waitForFunction((p) => document.querySelector('#trades td:nth-child(3)')?.textContent?.includes(String(p).slice(0, 4)) ?? false, price, {
          timeout: 10_000,
        });
      }
      expect(errors).toEqual([]);
      await page.close();
    }, 60_000);
  }
});
