/**
 * What `npm start` says once the service listens: where to point a browser, and the chart SDK a
 * partner's page loads (README, Set-up and Chart a token on your site). On a terminal it is the
 * plain banner; when stderr is not a terminal (a service manager, a container, a log shipper) it
 * is one JSON log line like every other, so the log stays one JSON document a line.
 */
import type { AddressInfo } from 'node:net';
import type { Repos } from './store/port/repos.js';

/** The URLs the banner names. */
export type StartUrls = { listening: string; liveChart: string; embed: string; dashboard: string; docs: string; sdk: string };

/** The URLs of the pages, docs and SDK of a server listening at `address`; the chart link names the newest traded token. */
export async function startUrls(repos: { demo: Pick<Repos['demo'], 'newestTraded'> }, address: AddressInfo): Promise<StartUrls> {
  // A wildcard address is reachable on loopback; show that, it is what a browser on this machine opens.
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  const base = `http://${address.family === 'IPv6' && host.includes(':') ? `[${host}]` : host}:${address.port}`;
  // Without an answer from the store the banner still prints, with a placeholder in the link.
  const token = await repos.demo.newestTraded().catch(() => undefined);
  return {
    listening: base,
    liveChart: `${base}/`,
    embed: `${base}/embed/chart?symbol=${token ?? 'ADDRESS'}&resolution=15`,
    dashboard: `${base}/dashboard`,
    docs: `${base}/docs`,
    sdk: `${base}/sdk/datafeed.js`,
  };
}

/** The plain banner, for a terminal. */
export function bannerText(urls: StartUrls): string {
  return [
    `listening on ${urls.listening}`,
    `  live chart        ${urls.liveChart}`,
    `  embeddable chart  ${urls.embed}`,
    `  dashboard         ${urls.dashboard}`,
    `  API docs          ${urls.docs}`,
    `  chart SDK         ${urls.sdk}  (TradingView datafeed; README, Chart a token on your site)`,
    '',
  ].join('\n');
}

/** The banner as a terminal prints it (README, Set-up). */
export async function startBanner(repos: { demo: Pick<Repos['demo'], 'newestTraded'> }, address: AddressInfo): Promise<string> {
  return bannerText(await startUrls(repos, address));
}
