/**
 * /docs in headless Chromium: Swagger UI loads from this server alone (every request stays on
 * the origin, no Content-Security-Policy violation, no script error) and lists one block per
 * operation of /openapi.json, with a padlock on keyed operations only. Skipped, like the other
 * browser tests, when Chromium is absent.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchBrowser } from '../browser/support.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

describe.skipIf(!browserAvailable)('/docs in headless Chromium', () => {
  let browser: Browser;
  let t: TestApp;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    t = makeTestApp({ env: { RATE_LIMIT_ANON: '100000/60' } });
    server = t.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    t?.close();
  });

  it('renders every operation of the document, from this origin only', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    await page.goto(`${base}/docs`);
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, operations, { timeout: 20_000 });
    expect(await page.locator('.opblock').count()).toBe(operations);
    // A padlock only on keyed operations: public ones have no security requirement.
    const keyed = Object.values(doc.paths).reduce(
      (n, ops) => n + Object.values(ops).filter((op) => ((op as { security?: unknown[] }).security ?? []).length > 0).length,
      0,
    );
    expect(keyed).toBeGreaterThan(0);
    expect(keyed).toBeLessThan(operations);
    expect(await page.locator('.opblock .authorization__btn').count()).toBe(keyed);
    expect(await page.locator('.opblock-summary-path').first().textContent()).toMatch(/^\/(udf|v1)\//);
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    await page.close();
  }, 60_000);
});
