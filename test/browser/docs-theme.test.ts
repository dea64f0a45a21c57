/**
 * /docs as a reader sees it, in headless Chromium: the app's dark theme and header, the tag
 * sections in the order of the README, and a padlock only on operations that need a key.
 * A screenshot goes to .tmp/screens/docs.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { announceSkip, browserAvailable, launchBrowser, startDemoApp, type RunningApp } from './support.js';

announceSkip();

describe.skipIf(!browserAvailable)('/docs theme and order', () => {
  let browser: Browser;
  let app: RunningApp;

  beforeAll(async () => {
    [browser, app] = await Promise.all([launchBrowser(), startDemoApp()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('is dark like the app, lists the README sections in order, and locks only keyed operations', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${app.base}/docs`);
    await page.waitForSelector('.opblock-tag', { timeout: 20_000 });
    const doc = (await (await fetch(`${app.base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security: unknown[] }>>;
    };
    const ops = Object.values(doc.paths).flatMap((o) => Object.values(o));
    await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, ops.length);

    // Dark: the page and the text read as the app's (luminance of the background well below the text's).
    const colors = await page.evaluate(() => {
      const lum = (c: string) => {
        const [r, g, b] = (c.match(/\d+/g) ?? []).map(Number);
        return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
      };
      return {
        body: lum(getComputedStyle(document.body).backgroundColor),
        title: lum(getComputedStyle(document.querySelector('.swagger-ui .info .title')!).color),
        tag: lum(getComputedStyle(document.querySelector('.opblock-tag')!).color),
      };
    });
    expect(colors.body).toBeLessThan(0.15);
    expect(colors.title).toBeGreaterThan(0.7);
    expect(colors.tag).toBeGreaterThan(0.7);
    expect(await page.locator('header.topbar a.brand').getAttribute('href')).toBe('/');

    const tags = await page.locator('.opblock-tag').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag')));
    expect(tags.slice(0, 6)).toEqual(['tokens', 'market', 'udf', 'account', 'subscriptions', 'ingest']);

    const keyed = ops.filter((o) => o.security.length > 0).length;
    expect(keyed).toBeGreaterThan(0);
    expect(keyed).toBeLessThan(ops.length);
    expect(await page.locator('.opblock .authorization__btn').count()).toBe(keyed);
    const publicLocks = await page.locator('.opblock-tag-section:has([data-tag="tokens"]) .authorization__btn').count();
    expect(publicLocks).toBe(0);

    mkdirSync(join(process.cwd(), '.tmp', 'screens'), { recursive: true });
    await page.locator('.opblock-tag').first().click(); // collapse the first section to show more of the list
    await page.screenshot({ path: join(process.cwd(), '.tmp', 'screens', 'docs.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
