/**
 * The pages in headless Chromium (docs/api.md, Pages), against the real app on 127.0.0.1 with a
 * small demo store: the chart draws candles and volume, switching resolution redraws from new
 * datafeed requests, without a stream the chart polls /udf/history at most every 5 s, the embed renders in
 * an iframe of another site, and the dashboard signs in, shows a new key once and revokes it.
 *
 * Without Chromium these tests are skipped with one line on stdout; with REQUIRE_BROWSER=1 a
 * missing Chromium fails the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { nowSeconds, systemClock } from '../../src/domain/clock.js';
import { anAddress } from '../helpers/builders.js';
import {
  announceSkip,
  browserAvailable,
  browserRequired,
  CHROMIUM_PATH,
  launchBrowser,
  pixelStats,
  startDemoApp,
  startPartnerSite,
  type RunningApp,
} from './support.js';

type ChartState = {
  status: string;
  symbol: string | null;
  ticker: string | null;
  name: string | null;
  resolution: string | null;
  bars: number;
  firstTime: number | null;
  lastTime: number | null;
  minSpacing: number | null;
  lastClose: number | null;
  loads: number;
  refreshes: number;
};
declare global {
  interface Window {
    __chart?: ChartState;
  }
}

announceSkip();

if (!browserAvailable && browserRequired) {
  describe('browser tests (REQUIRE_BROWSER=1)', () => {
    it('need Chromium', () => {
      throw new Error(`REQUIRE_BROWSER=1 but Chromium is not at ${CHROMIUM_PATH}; install it with "apt-get install chromium"`);
    });
  });
}

const DARK = { up: '#26a69a', down: '#ef5350' };
const LIGHT = { bg: '#ffffff', up: '#138a7e', down: '#d93b38' };

describe.skipIf(!browserAvailable)('pages in headless Chromium', () => {
  let browser: Browser;
  let app: RunningApp;
  let tokens: { address: string; symbol: string }[];

  beforeAll(async () => {
    [browser, app] = await Promise.all([launchBrowser(), startDemoApp()]);
    tokens = app.store.db.prepare('SELECT address, symbol FROM tokens ORDER BY id').all() as typeof tokens;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A page that records errors and /udf/history requests (with the time each was sent). */
  async function openPage(path: string, viewport = { width: 1200, height: 900 }, opts: { noWebSocket?: boolean } = {}) {
    const page = await browser.newPage({ viewport });
    // A WebSocket that can never connect (as behind a proxy refusing upgrades): the pages poll.
    if (opts.noWebSocket)
      await page.addInitScript(
        () =>
          void (window.WebSocket = class {
            onclose: (() => void) | null = null;
            constructor() {
              setTimeout(() => this.onclose?.(), 0);
            }
          } as never),
      );
    const errors: string[] = [];
    const history: { url: string; at: number }[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('request', (r) => {
      if (r.url().includes('/udf/history')) history.push({ url: r.url(), at: Date.now() });
    });
    const openedAt = Date.now();
    await page.goto(app.base + path);
    return { page, errors, history, openedAt };
  }

  const chartState = (page: Page) => page.evaluate(() => ({ ...window.__chart! }));
  /** Waits until the chart has bars and its state matches `want` (CSP forbids string predicates). */
  const waitReady = (page: Page, want: Partial<ChartState> = {}) =>
    page.waitForFunction(
      (w) => {
        const c = window.__chart;
        return !!c && c.status === 'ready' && c.bars > 0 && Object.entries(w).every(([k, v]) => c[k as keyof ChartState] === v);
      },
      want,
      { timeout: 15_000 },
    );

  it('draws candles and volume for a demo token, and redraws from new datafeed requests when the resolution changes', async () => {
    const { page, errors, history } = await openPage('/');
    await waitReady(page);
    const first = await chartState(page);
    expect(first.ticker).toBe(tokens.find((t) => t.symbol === first.name)?.address);
    expect(first.resolution).toBe('15');
    expect(first.bars).toBeGreaterThan(50);
    expect(first.minSpacing! % 900).toBe(0);
    expect(history[0]!.url).toMatch(/\/udf\/history\?symbol=\w+&resolution=15&from=0&to=\d+&countback=300$/);

    const shot1 = await page.locator('#chart').screenshot();
    const px1 = await pixelStats(browser, shot1, [DARK.up, DARK.down]);
    expect(px1.distinctColors).toBeGreaterThan(20);
    expect(px1.near[0]).toBeGreaterThan(200); // rising candles and their volume bars
    expect(px1.near[1]).toBeGreaterThan(200); // falling ones

    const before = history.length;
    await page.click('button[data-resolution="60"]');
    await waitReady(page, { resolution: '60', loads: 2 });
    const second = await chartState(page);
    const asked = history.slice(before).map((h) => h.url);
    expect(asked.some((u) => /resolution=60&from=0&to=\d+&countback=300$/.test(u))).toBe(true);
    expect(second.minSpacing! % 3600).toBe(0);
    expect(second.firstTime! % 3600).toBe(0);
    expect(second.bars).toBeLessThan(first.bars);
    expect(await page.getAttribute('button[data-resolution="60"]', 'aria-pressed')).toBe('true');
    expect(await page.getAttribute('button[data-resolution="15"]', 'aria-pressed')).toBe('false');
    expect(new URL(page.url()).searchParams.get('resolution')).toBe('60');

    const shot2 = await page.locator('#chart').screenshot();
    expect(shot2.equals(shot1)).toBe(false);
    const px2 = await pixelStats(browser, shot2, [DARK.up, DARK.down]);
    expect(px2.near[0]! + px2.near[1]!).toBeGreaterThan(400);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the overview figures and the 20 latest trades, and finds another token by search', async () => {
    const { page, errors } = await openPage('/');
    await waitReady(page);
    await page.waitForFunction(() => document.querySelectorAll('#trades tr').length === 20 && document.querySelectorAll('#overview dd').length > 10, null, {
      timeout: 15_000,
    });
    expect(await page.textContent('#token-price')).toMatch(/^\$\d/);

    const target = tokens[2]!;
    await page.fill('#search', target.symbol.slice(0, 3).toLowerCase());
    await page.waitForSelector(`#search-results button[data-address="${target.address}"]`, { timeout: 10_000 });
    await page.click(`#search-results button[data-address="${target.address}"]`);
    await waitReady(page, { ticker: target.address });
    expect((await chartState(page)).name).toBe(target.symbol);
    expect(new URL(page.url()).searchParams.get('symbol')).toBe(target.address);
    await page.waitForFunction((a) => document.querySelector('#trades tr td:last-child') !== null && document.title.startsWith(a), target.symbol);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('without a stream, refreshes the chart from /udf/history at most every 5 s and shows a newly ingested trade', async () => {
    const token = tokens[0]!;
    const { page, history, openedAt } = await openPage(`/?symbol=${token.address}&resolution=1`, undefined, { noWebSocket: true });
    await waitReady(page);
    const { lastClose } = await chartState(page);
    const market = app.store.db
      .prepare('SELECT m.address FROM markets m JOIN tokens t ON t.id = m.token_id WHERE t.address = ? LIMIT 1')
      .pluck()
      .get(token.address) as string;
    const price = Number((lastClose! * 1.37).toPrecision(6));
    app.services.ingest.ingest([
      {
        line: 1,
        value: {
          type: 'trade',
          token: token.address,
          market,
          signature: `browser-${Date.now()}`,
          index: 0,
          blockTime: nowSeconds(systemClock),
          side: 'buy',
          priceUsd: price,
          amount: 10,
          quoteAmount: 0.1,
          volumeUsd: price * 10,
          wallet: anAddress('wallet'),
        },
      },
    ]);
    await page.waitForFunction((p) => window.__chart!.lastClose === p, price, { timeout: 15_000 });
    await page.waitForTimeout(5_500);
    const refreshes = history.filter((h) => h.url.includes('countback=2')).map((h) => h.at);
    expect(refreshes.length).toBeGreaterThanOrEqual(2);
    expect(refreshes[0]! - openedAt).toBeGreaterThanOrEqual(4_900);
    for (let i = 1; i < refreshes.length; i++) expect(refreshes[i]! - refreshes[i - 1]!).toBeGreaterThanOrEqual(4_900);
    await page.close();
  }, 60_000);

  it('renders the embed in an iframe of another site, with public routes only', async () => {
    const token = tokens[0]!;
    const partner = await startPartnerSite(`${app.base}/embed/chart?symbol=${token.address}&resolution=15&theme=light`);
    const page = await browser.newPage({ viewport: { width: 900, height: 520 } });
    const seen: { url: string; headers: Record<string, string> }[] = [];
    const errors: string[] = [];
    page.on('request', (r) => seen.push({ url: r.url(), headers: r.headers() }));
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    try {
      await page.goto(partner.url);
      const frame = (await (await page.waitForSelector('#chart')).contentFrame())!;
      await frame.waitForFunction(() => window.__chart?.status === 'ready' && window.__chart.bars > 0, null, { timeout: 15_000 });
      expect(new URL(page.url()).host).toMatch(/^partner\.test:\d+$/);
      expect(new URL(frame.url()).origin).toBe(app.base);
      expect(await frame.textContent('#legend-symbol')).toBe(token.symbol);
      expect(await frame.getAttribute('html', 'data-theme')).toBe('light');

      const shot = await page.locator('#chart').screenshot();
      const px = await pixelStats(browser, shot, [LIGHT.bg, LIGHT.up, LIGHT.down]);
      expect(px.width).toBe(800);
      expect(px.near[0]).toBeGreaterThan(px.width * px.height * 0.3); // the light background, not the partner's grey
      expect(px.near[1]).toBeGreaterThan(100);
      expect(px.near[2]).toBeGreaterThan(100);

      const ours = seen.filter((r) => r.url.startsWith(app.base));
      expect(ours.length).toBeGreaterThan(3);
      for (const r of ours) {
        expect(new URL(r.url).pathname).toMatch(/^\/(embed\/chart|assets\/.+|udf\/(symbols|history|time))$/);
        expect(r.url).not.toMatch(/[?&]key=/);
        expect(r.headers['x-api-key']).toBeUndefined();
        expect(r.headers.authorization).toBeUndefined();
      }
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await partner.close();
    }
  }, 60_000);

  it('refuses to show the dashboard inside another site’s frame', async () => {
    const partner = await startPartnerSite(`${app.base}/dashboard`);
    const page = await browser.newPage();
    try {
      const blocked = page.waitForEvent('console', { predicate: (m) => m.text().includes("frame-ancestors 'none'"), timeout: 10_000 });
      await page.goto(partner.url);
      await blocked;
      const frame = (await (await page.waitForSelector('#chart')).contentFrame())!;
      expect(frame.url()).toMatch(/^chrome-error:/);
      expect(await frame.$('#signin-form')).toBeNull();
    } finally {
      await page.close();
      await partner.close();
    }
  }, 30_000);

  it('dashboard: signs in, creates a key shown once, and revokes it so the key gets 401 from /v1/me', async () => {
    const email = 'owner@acme.test';
    const password = 'a long enough password';
    const tenant = await app.services.accounts.createTenant({ name: 'Acme', plan: 'free', email });
    await app.services.accounts.setPassword(tenant.id, password);

    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.base });
    const page = await context.newPage();
    const bodies: { url: string; method: string; text: string }[] = [];
    const urls: string[] = [];
    page.on('request', (r) => urls.push(r.url()));
    page.on('response', async (r) => {
      if (r.url().includes('/dashboard/api/')) bodies.push({ url: r.url(), method: r.request().method(), text: await r.text().catch(() => '') });
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    const me = (secret: string) => fetch(`${app.base}/v1/me`, { headers: { 'x-api-key': secret } }).then((r) => r.status);

    await page.goto(`${app.base}/dashboard`);
    await page.waitForSelector('#signin-form', { state: 'visible' });
    await page.fill('#email', email);
    await page.fill('#password', 'wrong password');
    await page.click('#signin-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#signin-error')!.textContent === 'wrong email or password');
    await page.fill('#password', password);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('#app', { state: 'visible' });
    expect(await page.textContent('#who')).toContain('Acme');

    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('svc_session');

    await page.fill('#key-name', 'from the browser');
    await page.click('#key-form button[type="submit"]');
    const box = page.locator('#secrets .secret-box');
    await box.waitFor({ state: 'visible' });
    const secret = (await box.locator('.secret-value').textContent())!;
    expect(secret).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(await me(secret)).toBe(200);

    // A webhook secret made next waits behind the key's, which stays until dismissed: one box at a time.
    await page.fill('#sub-address', tokens[1]!.address);
    await page.fill('#sub-webhook', 'http://127.0.0.1:9/hook');
    await page.click('#sub-form button[type="submit"]');
    await page.waitForSelector(`tr[data-address="${tokens[1]!.address}"]`);
    await expect.poll(() => page.locator('#secrets .waiting').textContent()).toBe('1 more new secret after this one');
    expect(await page.locator('#secrets .secret-value').allTextContents()).toEqual([secret]);

    const keyBox = box.filter({ hasText: secret });
    await keyBox.locator('button.copy').click();
    await expect.poll(() => keyBox.locator('.copied').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    await keyBox.locator('button.done').click();
    await expect.poll(() => page.locator('#secrets .secret-value').allTextContents()).toEqual([expect.stringMatching(/^whsec_/)]);
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.waitForSelector('#app', { state: 'visible' });
    await page.waitForSelector('tr[data-key-id] .badge.active');
    expect(await page.content()).not.toContain(secret);

    // The secret travelled once, in the JSON answer of the create call, and never in a URL.
    const carrying = bodies.filter((b) => b.text.includes(secret));
    expect(carrying.map((b) => `${b.method} ${new URL(b.url).pathname}`)).toEqual(['POST /dashboard/api/keys']);
    expect(await page.locator('#secrets .secret-box').count()).toBe(0); // a reload keeps no secret
    expect(urls.some((u) => u.includes(secret))).toBe(false);
    expect(page.url()).not.toContain(secret);

    await page.click('tr[data-key-id] button[data-action="revoke"]');
    // A revoked key leaves the list; it is there again, marked revoked, behind the toggle.
    await page.waitForSelector('tr[data-key-id]', { state: 'detached' });
    expect(await page.textContent('#revoked-count')).toBe('1');
    await page.check('#show-revoked');
    await page.waitForSelector('tr[data-key-id] .badge.revoked');
    expect(dialogs).toHaveLength(1);
    expect(await me(secret)).toBe(401);

    await page.click('#sign-out');
    await page.waitForSelector('#signin-form', { state: 'visible' });
    expect((await context.cookies()).find((c) => c.name === 'svc_session')).toBeUndefined();
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
