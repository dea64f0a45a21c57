/**
 * The pages on a 390 px phone screen and the numbers they show, in headless Chromium against the
 * real app: nothing wider than the screen, the key elements visible and inside it, the chart's
 * price axis never below zero at any resolution, a tiny price written with subscript zeros.
 * Screenshots go to .tmp/screens/ for a person to look at.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { nowSeconds, systemClock } from '../../src/domain/clock.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { announceSkip, browserAvailable, launchBrowser, startDemoApp, type RunningApp } from './support.js';

declare global {
  interface Window {
    __chartAxis?: (sample: number) => { bottom: number | null; top: number | null; sample: string };
  }
}

announceSkip();
const PHONE = { width: 390, height: 844 };
const SCREENS = join(process.cwd(), '.tmp', 'screens');

describe.skipIf(!browserAvailable)('pages on a phone', () => {
  let browser: Browser;
  let app: RunningApp;
  let tiny: string;
  let launch: string;

  beforeAll(async () => {
    mkdirSync(SCREENS, { recursive: true });
    [browser, app] = await Promise.all([launchBrowser(), startDemoApp()]);
    // A token priced at 0.000014 USD, with an hour of trades.
    const now = nowSeconds(systemClock);
    const token = aToken({ symbol: 'TINY', name: 'Tiny Price', createdAt: now - 7200 });
    const market = aMarket(token.address, { createdAt: now - 7200 });
    const trades = Array.from({ length: 30 }, (_, i) =>
      aTrade(token.address, {
        market: market.address,
        blockTime: now - 3600 + i * 120,
        priceUsd: 0.000014 * (1 + (i % 5) / 100),
        volumeUsd: 50,
        amount: 50 / 0.000014,
      }),
    );
    trades.push(aTrade(token.address, { market: market.address, blockTime: now - 10, priceUsd: 0.000014, volumeUsd: 50, amount: 50 / 0.000014 }));
    app.services.ingest.ingest([token, market, ...trades].map((value, i) => ({ line: i + 1, value })));
    tiny = token.address;
    // The demo set's fresh launch: its price climbed several times over, the widest range to scale.
    launch = app.store.db.prepare('SELECT address FROM tokens WHERE is_demo = 1 ORDER BY created_at DESC LIMIT 1').pluck().get() as string;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function open(path: string): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: PHONE, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(app.base + path);
    return { page, errors };
  }

  const waitChart = (page: Page, resolution?: string) =>
    page.waitForFunction(
      (r) => {
        const c = (window as unknown as { __chart?: { status: string; bars: number; resolution: string | null } }).__chart;
        return c?.status === 'ready' && c.bars > 0 && (r === undefined || c.resolution === r);
      },
      resolution,
      { timeout: 15_000 },
    );

  /** The page is no wider than the screen, and each selector is visible and inside the screen's width. */
  async function fitsPhone(page: Page, selectors: string[]) {
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
    expect(innerWidth).toBe(PHONE.width);
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    for (const selector of selectors) {
      const box = await page.locator(selector).first().boundingBox();
      expect(box, selector).not.toBeNull();
      expect(box!.width, selector).toBeGreaterThan(0);
      expect(box!.x, selector).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, selector).toBeLessThanOrEqual(PHONE.width);
    }
  }

  it('home: opens a live token; the search box keeps a usable width, the chart and figures fit the screen', async () => {
    const { page, errors } = await open('/');
    await waitChart(page);
    await page.waitForFunction(() => document.querySelectorAll('#overview dd').length > 10);
    // The landing token is a live one: the most traded of the last hour.
    const trending = (await (await fetch(`${app.base}/v1/market/trending?window=1h&limit=1`)).json()) as { tokens: { address: string }[] };
    expect(await page.evaluate(() => (window as unknown as { __chart: { ticker: string } }).__chart.ticker)).toBe(trending.tokens[0]!.address);
    await fitsPhone(page, ['#search', '#chart', '#token-price', '#overview', 'button[data-resolution="1D"]', '.topbar nav a[href="/dashboard"]']);
    expect((await page.locator('#search').boundingBox())!.width).toBeGreaterThan(300);
    await page.screenshot({ path: join(SCREENS, 'phone-home.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('embed: the chart and its legend fit the screen', async () => {
    const { page, errors } = await open(`/embed/chart?symbol=${launch}&resolution=15`);
    await waitChart(page);
    await fitsPhone(page, ['#chart', '#legend-symbol', '#legend-price', '#full-link']);
    await page.screenshot({ path: join(SCREENS, 'phone-embed.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('dashboard: no wider than the screen, with the key actions and the grace period in reach', async () => {
    const email = 'phone@acme.test';
    const password = 'a long enough password';
    const tenant = await app.services.accounts.createTenant({ name: 'Acme Phone Company Limited', plan: 'free', email });
    await app.services.accounts.setPassword(tenant.id, password);
    await app.services.accounts.createKey(tenant.id, { name: 'production backend' });
    const old = await app.services.accounts.createKey(tenant.id, { name: 'old one' });
    await app.services.accounts.revokeKey(old.key.id);

    const { page, errors } = await open('/dashboard');
    await page.waitForSelector('#signin-form', { state: 'visible' });
    await fitsPhone(page, ['#email', '#password', '#signin-form button[type="submit"]']);
    await page.fill('#email', email);
    await page.fill('#password', password);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('tr[data-key-id] button[data-action="rotate"]');
    await fitsPhone(page, [
      '#key-form button',
      '#grace',
      'tr[data-key-id] button[data-action="rotate"]',
      'tr[data-key-id] button[data-action="revoke"]',
      '#sub-form button',
      '#sign-out',
    ]);
    // The revoked key is hidden until asked for.
    expect(await page.locator('tr[data-key-id]').count()).toBe(1);
    expect(await page.textContent('#revoked-count')).toBe('1');
    // The grace select sits with the keys it applies to.
    expect(await page.locator('section:has(#keys) #grace').count()).toBe(1);
    await page.screenshot({ path: join(SCREENS, 'phone-dashboard.png'), fullPage: true });
    await page.check('#show-revoked');
    await page.waitForSelector('tr[data-key-id] .badge.revoked');
    await fitsPhone(page, ['tr[data-key-id] .badge.revoked']);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('the price axis never goes below zero, at any resolution', async () => {
    const { page, errors } = await open(`/?symbol=${launch}&resolution=15`);
    for (const resolution of ['15', '60', '240', '1D']) {
      if (resolution !== '15') await page.click(`button[data-resolution="${resolution}"]`);
      await waitChart(page, resolution);
      await page.waitForTimeout(200); // one frame for the scale to settle
      const axis = await page.evaluate(() => window.__chartAxis!(1));
      expect(axis.bottom, resolution).not.toBeNull();
      expect(axis.bottom!, resolution).toBeGreaterThanOrEqual(0);
      expect(axis.top!, resolution).toBeGreaterThan(axis.bottom!);
      if (resolution === '60') await page.screenshot({ path: join(SCREENS, 'phone-home-launch-1h.png') });
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('writes a tiny price with subscript zeros, on the page and on the axis', async () => {
    const { page, errors } = await open(`/?symbol=${tiny}&resolution=1`);
    await waitChart(page);
    await page.waitForFunction(() => document.querySelector('#token-price')?.textContent !== '');
    expect(await page.textContent('#token-price')).toBe('$0.0₄14');
    expect((await page.evaluate(() => window.__chartAxis!(0.000014))).sample).toBe('0.0₄14');
    expect(await page.locator('#trades td.num').first().textContent()).toBe('$0.0₄14');
    await page.screenshot({ path: join(SCREENS, 'phone-home-tiny.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
