/**
 * The home page with a pasted wallet (docs/api.md, Pages; issue 32): the wallet's trades of the
 * charted token appear as markers on the live chart (B below the bar, S above), one per mark that
 * /udf/marks gives for the bars shown, and the view keeps the wallet in its URL. A screenshot goes to
 * .tmp/screens/home-wallet-marks.png. Skipped with one line when Chromium is missing.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchBrowser, startDemoApp, type RunningApp } from './support.js';

type ChartState = { status: string; firstTime: number | null; markers: number };

describe.skipIf(!browserAvailable)('a wallet pasted on the home page', () => {
  let browser: Browser;
  let app: RunningApp;

  beforeAll(async () => {
    [browser, app] = await Promise.all([launchBrowser(), startDemoApp()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('marks its trades of the token on the chart, as many as /udf/marks gives for the bars shown', async () => {
    // The busiest wallet of the most traded token over the last day.
    const [busiest] = app.store.db
      .prepare(
        `SELECT t.address, tr.wallet, count(*) AS n FROM trades tr JOIN tokens t ON t.id = tr.token_id
         WHERE tr.block_time > unixepoch() - 86400 GROUP BY tr.token_id, tr.wallet ORDER BY n DESC, tr.wallet LIMIT 1`,
      )
      .all() as { address: string; wallet: string; n: number }[];
    expect(busiest!.n).toBeGreaterThan(3);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${app.base}/?symbol=${busiest!.address}&resolution=15`);
    await page.waitForFunction(() => (window as unknown as { __chart: ChartState }).__chart.status === 'ready');
    await page.fill('#wallet', busiest!.wallet);
    await page.waitForFunction(() => (window as unknown as { __chart: ChartState }).__chart.markers > 0);
    const state = await page.evaluate(() => (window as unknown as { __chart: ChartState }).__chart);
    const marks = (await (
      await fetch(
        `${app.base}/udf/marks?symbol=${busiest!.address}&from=${state.firstTime}&to=${Math.floor(Date.now() / 1000) + 86_400}&resolution=15&wallet=${busiest!.wallet}`,
      )
    ).json()) as { id: number[]; label: string[] };
    expect(marks.id.length).toBeGreaterThanOrEqual(busiest!.n);
    expect(state.markers).toBe(marks.id.length);
    const buys = marks.label.filter((l) => l === 'B').length;
    expect(await page.textContent('#wallet-status')).toBe(`${buys} buys, ${marks.id.length - buys} sells`);
    expect(new URL(page.url()).searchParams.get('wallet')).toBe(busiest!.wallet);
    mkdirSync(join(process.cwd(), '.tmp', 'screens'), { recursive: true });
    await page.screenshot({ path: join(process.cwd(), '.tmp', 'screens', 'home-wallet-marks.png') });

    // A wallet that is not an address says so and clears the markers.
    await page.fill('#wallet', 'not a wallet');
    await page.waitForFunction(() => (window as unknown as { __chart: ChartState }).__chart.markers === 0);
    expect(await page.textContent('#wallet-status')).toBe('not a wallet address');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
