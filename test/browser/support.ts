/**
 * Browser test support: whether Chromium is here (docs/api.md, Pages: skipped with one line
 * when it is not, a failure when REQUIRE_BROWSER=1), launching it through playwright-core, the
 * real app on 127.0.0.1 with a small demo store, a second local server for a partner page, and
 * a pixel check of screenshots.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createApp } from '../../src/app.js';
import { attachStream } from '../../src/http/stream.js';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/sqlite/db.js';
import { createServices, type Services } from '../../src/services/index.js';
import { createLogger } from '../../src/logger.js';
import { loadDemo } from '../../src/services/demo.js';
import { nowSeconds, systemClock } from '../../src/domain/clock.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const browserAvailable = existsSync(CHROMIUM_PATH);
export const browserRequired = process.env.REQUIRE_BROWSER === '1';

/** Prints the one line saying the browser tests were skipped (only when they are). */
export function announceSkip(): void {
  if (!browserAvailable && !browserRequired) {
    process.stdout.write(
      `browser tests skipped: Chromium not found at ${CHROMIUM_PATH}; install it with "apt-get install chromium" (REQUIRE_BROWSER=1 makes this a failure)\n`,
    );
  }
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // A partner site with its own name, served from loopback: cross-site, not only cross-origin.
      '--host-resolver-rules=MAP partner.test 127.0.0.1',
    ],
  });
}

export type RunningApp = { base: string; store: Store; services: Services; server: Server; close(): Promise<void> };

/** The real app, listening on 127.0.0.1 (port 0), over an in-memory store holding a small demo set. */
export async function startDemoApp(): Promise<RunningApp> {
  const config = loadConfig({
    DATABASE_PATH: ':memory:',
    DEMO_DATA: 'off',
    DEMO_FEED: 'off',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMIT_ANON: '100000/60',
  });
  const store = openStore(config.databasePath);
  const clock = systemClock; // the browser's clock is the real one
  const services = createServices({ store, clock, config });
  // The model's own rates (a quiet past and a busy end, as `npm start` loads), over two days.
  await loadDemo(services, { tokens: 5, days: 2, seed: 11, until: nowSeconds(clock) });
  const app = createApp({ config, store, clock, services, logger: createLogger('silent') });
  const server = app.listen(0, '127.0.0.1');
  const stream = attachStream(server, app); // as the real server does: the pages go live
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    store,
    services,
    server,
    close: async () => {
      await stream.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      store.close();
    },
  };
}

/** A partner's page on another origin (http://partner.test:PORT/) that frames `iframeSrc`. */
export async function startPartnerSite(iframeSrc: string): Promise<{ url: string; close(): Promise<void> }> {
  const html = `<!doctype html><html><head><title>Partner</title></head><body style="margin:0;background:#808080">
<h1 style="font:16px sans-serif;margin:8px">A partner site</h1>
<iframe id="chart" src="${iframeSrc.replace(/"/g, '&quot;')}" width="800" height="420" style="border:0"></iframe>
</body></html>`;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://partner.test:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type PixelStats = { width: number; height: number; distinctColors: number; near: number[] };

/**
 * Decodes a PNG screenshot in a blank page and counts its distinct colours and the pixels close
 * to each of `colors` (hex): a blank or single-colour capture has very few of either.
 */
export async function pixelStats(browser: Browser, png: Buffer, colors: string[]): Promise<PixelStats> {
  const page: Page = await browser.newPage();
  try {
    return await page.evaluate(
      async ({ b64, targets }) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(img, 0, 0);
        const data = ctx.getImageData(0, 0, img.width, img.height).data;
        const rgb = targets.map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)));
        const near = rgb.map(() => 0);
        const seen = new Set<number>();
        for (let i = 0; i < data.length; i += 4) {
          const r = data[i]!,
            g = data[i + 1]!,
            b = data[i + 2]!;
          seen.add((r << 16) | (g << 8) | b);
          rgb.forEach(([tr, tg, tb], k) => {
            if (Math.abs(r - tr!) + Math.abs(g - tg!) + Math.abs(b - tb!) < 40) near[k]!++;
          });
        }
        return { width: img.width, height: img.height, distinctColors: seen.size, near };
      },
      { b64: png.toString('base64'), targets: colors },
    );
  } finally {
    await page.close();
  }
}
