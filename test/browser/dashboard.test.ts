/**
 * The dashboard's keys in headless Chromium (docs/api.md, Pages): a key is created with the
 * scopes picked (read, or read and manage; never ingest), secrets made one after another show one
 * at a time, and the key table shows every name whole with revoked and expired keys shown.
 * A screenshot goes to .tmp/screens/dashboard-keys.png for a person to look at.
 *
 * Without Chromium these tests are skipped with one line on stdout (test/browser/pages.test.ts
 * fails the run under REQUIRE_BROWSER=1).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { announceSkip, browserAvailable, launchBrowser, startDemoApp, type RunningApp } from './support.js';

announceSkip();

const SCREENS = join(process.cwd(), '.tmp', 'screens');
const LONG_NAME = 'reads for the partner site, production, europe';

describe.skipIf(!browserAvailable)('dashboard keys in headless Chromium', () => {
  let browser: Browser;
  let app: RunningApp;

  beforeAll(async () => {
    [browser, app] = await Promise.all([launchBrowser(), startDemoApp()]);
    mkdirSync(SCREENS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** The scopes /v1/me reports for a key. */
  const scopesOf = async (secret: string): Promise<string[]> =>
    ((await (await fetch(`${app.base}/v1/me`, { headers: { 'x-api-key': secret } })).json()) as { key: { scopes: string[] } }).key.scopes;

  let tenants = 0;
  async function signedIn(viewport: { width: number; height: number }): Promise<Page> {
    const email = `owner-${++tenants}@keys.test`;
    const password = 'a long enough password';
    const tenant = await app.services.accounts.createTenant({ name: 'Keys Inc', plan: 'pro', email });
    await app.services.accounts.setPassword(tenant.id, password);
    const page = await browser.newPage({ viewport });
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${app.base}/dashboard`);
    await page.waitForSelector('#signin-form', { state: 'visible' });
    await page.fill('#email', email);
    await page.fill('#password', password);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('#app', { state: 'visible' });
    return page;
  }

  async function createKey(page: Page, name: string, scopes: 'read' | 'read,manage') {
    await page.fill('#key-name', name);
    await page.selectOption('#key-scopes', scopes);
    await page.click('#key-form button[type="submit"]');
    await page.waitForSelector(`tr[data-key-id]:has-text("${name}")`);
  }

  it('creates keys with the scopes picked, never ingest, and shows their secrets one at a time', async () => {
    const page = await signedIn({ width: 1280, height: 900 });
    // The picker offers what the dashboard may grant, read first (the default).
    expect(await page.locator('#key-scopes option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['read', 'read,manage']);
    expect(await page.inputValue('#key-scopes')).toBe('read');

    await createKey(page, 'reader', 'read');
    const box = page.locator('#secrets .secret-box');
    await box.waitFor({ state: 'visible' });
    const first = (await box.locator('.secret-value').textContent())!;
    expect(await scopesOf(first)).toEqual(['read']);

    // A second key made before the first secret is dismissed waits behind it.
    await createKey(page, 'manager', 'read,manage');
    await expect.poll(() => page.locator('#secrets .waiting').textContent()).toBe('1 more new secret after this one');
    expect(await box.count()).toBe(1);
    expect(await box.locator('.secret-value').textContent()).toBe(first);

    await box.locator('button.done').click();
    await expect.poll(() => box.locator('.secret-value').textContent()).not.toBe(first);
    const second = (await box.locator('.secret-value').textContent())!;
    expect(second).toMatch(/^svc_live_/);
    expect(await scopesOf(second)).toEqual(['read', 'manage']);
    expect(await page.locator('#secrets .waiting').textContent()).toBe('');
    await box.locator('button.done').click();
    await expect.poll(() => box.count()).toBe(0);
    expect(await page.content()).not.toContain(first);
    expect(await page.content()).not.toContain(second);

    // The table shows each key's scopes.
    expect(await page.locator('tr[data-key-id]:has-text("manager") td[data-label="Scopes"]').textContent()).toBe('read, manage');
    await page.close();
  }, 60_000);

  it('shows every key name whole, revoked and expired keys included, on a laptop screen', async () => {
    const page = await signedIn({ width: 1280, height: 900 });
    await createKey(page, LONG_NAME, 'read');
    await page.locator('#secrets button.done').click();
    await createKey(page, 'staging reads, to be revoked', 'read');
    await page.locator('#secrets button.done').click();
    await createKey(page, 'a manage key that will be rotated', 'read,manage');
    await page.locator('#secrets button.done').click();
    await page.selectOption('#grace', '0');
    await page.click('tr[data-key-id]:has-text("a manage key that will be rotated") button[data-action="rotate"]');
    await page.locator('#secrets .secret-box').waitFor({ state: 'visible' });
    await page.locator('#secrets button.done').click();
    await page.click('tr[data-key-id]:has-text("staging reads, to be revoked") button[data-action="revoke"]');
    await expect.poll(() => page.textContent('#revoked-count')).toBe('2');

    await page.check('#show-revoked');
    await page.waitForSelector('tr[data-key-id] .badge.revoked');
    await page.waitForSelector('tr[data-key-id] .badge.expired');
    expect(await page.locator('tr[data-key-id]').count()).toBe(4);
    await page.locator('#keys').evaluate((el) => el.closest('section')!.scrollIntoView());
    await page.screenshot({ path: join(SCREENS, 'dashboard-keys.png'), fullPage: true });
    // Nothing is cut off: the table fits its panel (no sideways scroll hides a column), and each
    // name cell shows its whole text.
    const fit = await page.evaluate(() => {
      const wrap = document.querySelector('#keys')!.closest('.table-wrap')!;
      const names = Array.from(document.querySelectorAll<HTMLElement>('#keys td[data-label="Name"]'));
      const box = wrap.getBoundingClientRect();
      return {
        overflow: wrap.scrollWidth - wrap.clientWidth,
        names: names.map((n) => n.textContent),
        clipped: names.filter((n) => n.scrollWidth > n.clientWidth || n.getBoundingClientRect().right > box.right + 0.5).map((n) => n.textContent),
        actionsInside: Array.from(document.querySelectorAll('#keys td.actions')).every((a) => a.getBoundingClientRect().right <= box.right + 0.5),
      };
    });
    expect(fit.names).toContain(LONG_NAME);
    expect(fit.clipped).toEqual([]);
    expect(fit.overflow).toBe(0);
    expect(fit.actionsInside).toBe(true);
    await page.close();
  }, 60_000);
});
