/**
 * The pages in a deployment of several chains, in headless Chromium (docs/chains.md): `/` and
 * `/embed/chart` take `symbol=chain:address` in their URL and chart that chain's token, and follow
 * it live from the stream, whose frames name the token by its plain address and chain: a trade of
 * the other chain's token at the same address never moves the chart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchBrowser } from './support.js';
import { startLive, written, type Live } from '../stream/support.js';
import { CHAINS_ENV, HOUR, WETH, ingestTwoChains, liveTrade } from '../chains/support.js';

type Chart = { status: string; ticker: string | null; lastClose: number | null; live?: { status: string; pushes: number } };
/** The chart state the pages publish on window.__chart (read in the page, hence the inline casts). */

describe.skipIf(!browserAvailable)('pages on several chains', () => {
  let browser: Browser;
  let live: Live;

  beforeAll(async () => {
    [browser, live] = await Promise.all([launchBrowser(), startLive({ env: { ...CHAINS_ENV, RATE_LIMIT_ANON: '100000/60' } })]);
    ingestTwoChains(live);
    await written(live);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await live?.stop();
  });

  async function open(path: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    await page.goto(live.base + path);
    await page.waitForFunction(
      () =>
        (window as unknown as { __chart?: Chart }).__chart?.status === 'ready' && (window as unknown as { __chart?: Chart }).__chart?.live?.status === 'open',
      undefined,
      { timeout: 15_000 },
    );
    return page;
  }

  it('charts base:0x… on the home page: its name, the chain in the description, its last price', async () => {
    const page = await open(`/?symbol=base:${WETH}&resolution=60`);
    expect(
      await page.evaluate(() => [(window as unknown as { __chart?: Chart }).__chart!.ticker, (window as unknown as { __chart?: Chart }).__chart!.lastClose]),
    ).toEqual([`base:${WETH}`, 3100]);
    expect(await page.textContent('#token-symbol')).toBe('WETH');
    expect(await page.textContent('#token-name')).toBe('Wrapped Ether (base)');
    // The page keeps the chain-qualified token in its URL, so the view can be linked.
    expect(new URL(page.url()).searchParams.get('symbol')).toBe(`base:${WETH}`);
    await page.close();
  }, 60_000);

  it("follows ethereum:0x… live on the embed: Ethereum's trade moves it, Base's at the same address never", async () => {
    const page = await open(`/embed/chart?symbol=ethereum:${WETH}&resolution=60`);
    expect(await page.evaluate(() => (window as unknown as { __chart?: Chart }).__chart!.lastClose)).toBe(3500);
    expect(await page.textContent('#legend-symbol')).toBe('WETH');
    // Subscribed: the stream's first bar (the newest, unchanged) has been pushed.
    await page.waitForFunction(() => (window as unknown as { __chart?: Chart }).__chart!.live!.pushes === 1, undefined, { timeout: 15_000 });
    live.ingest([liveTrade('base', HOUR + 500, 1234)]);
    // Ethereum's trade after Base's: had the chart heard Base's, it would have shown 1234 first.
    live.ingest([liveTrade('ethereum', HOUR + 600, 3700)]);
    await page.waitForFunction(() => (window as unknown as { __chart?: Chart }).__chart!.lastClose === 3700, undefined, { timeout: 15_000 });
    // The first bar and Ethereum's: nothing of Base's.
    expect(await page.evaluate(() => (window as unknown as { __chart?: Chart }).__chart!.live!.pushes)).toBe(2);
    expect(await page.getAttribute('#full-link', 'href')).toBe(`/?${new URLSearchParams({ symbol: `ethereum:${WETH}`, resolution: '60' })}`);
    await page.close();
  }, 60_000);

  it("shows each search result's chain in the home page's search box, and charts the one picked on its chain", async () => {
    const page = await open(`/?symbol=base:${WETH}&resolution=60`);
    await page.fill('#search', 'weth');
    await page.waitForSelector(`#search-results button[data-address="ethereum:${WETH}"]`, { timeout: 10_000 });
    // One symbol, one address, two tokens: each result names its chain, and only those two match.
    const shown = await page.$$eval('#search-results button', (buttons) =>
      buttons.map((b) => [b.getAttribute('data-address'), b.querySelector('.chain')?.textContent ?? null]),
    );
    expect(shown.sort()).toEqual([
      [`base:${WETH}`, 'base'],
      [`ethereum:${WETH}`, 'ethereum'],
    ]);
    await page.click(`#search-results button[data-address="ethereum:${WETH}"]`);
    await page.waitForFunction((t) => (window as unknown as { __chart?: Chart }).__chart?.ticker === t, `ethereum:${WETH}`, { timeout: 15_000 });
    // The page puts the picked token in its URL once the chart has it (a replaceState after the switch).
    await page.waitForFunction((t) => new URL(location.href).searchParams.get('symbol') === t, `ethereum:${WETH}`, { timeout: 15_000 });
    await page.close();
  }, 60_000);
});
