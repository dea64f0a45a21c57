// The start banner a terminal shows (README, Set-up): every URL on its own line, the chart SDK
// among them; a log stream gets the same URLs as one JSON line (test/start.test.ts).
import { describe, expect, it } from 'vitest';
import { bannerText, startUrls } from '../src/start-banner.js';

const repos = (newest: string | undefined) => ({ demo: { newestTraded: async () => newest } });

describe('start banner', () => {
  it('names the pages, the docs and the chart SDK, the embed on the newest traded token', async () => {
    const urls = await startUrls(repos('So1arOtter1111111111111111111111111111111'), { address: '0.0.0.0', family: 'IPv4', port: 8080 });
    expect(bannerText(urls)).toBe(
      [
        'listening on http://127.0.0.1:8080',
        '  live chart        http://127.0.0.1:8080/',
        '  embeddable chart  http://127.0.0.1:8080/embed/chart?symbol=So1arOtter1111111111111111111111111111111&resolution=15',
        '  dashboard         http://127.0.0.1:8080/dashboard',
        '  API docs          http://127.0.0.1:8080/docs',
        '  chart SDK         http://127.0.0.1:8080/sdk/datafeed.js  (TradingView datafeed; README, Chart a token on your site)',
        '',
      ].join('\n'),
    );
  });

  it('puts a placeholder in the embed link when the store cannot answer, and brackets an IPv6 host', async () => {
    const failing = { demo: { newestTraded: () => Promise.reject(new Error('down')) } };
    const urls = await startUrls(failing, { address: '::1', family: 'IPv6', port: 9000 });
    expect(urls.embed).toBe('http://[::1]:9000/embed/chart?symbol=ADDRESS&resolution=15');
    expect(urls.sdk).toBe('http://[::1]:9000/sdk/datafeed.js');
  });
});
