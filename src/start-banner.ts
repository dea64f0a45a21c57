/**
 * The lines `npm start` prints once the service listens: where to point a browser. Printed on
 * stderr, with the JSON log. README, Set-up.
 */
import type { AddressInfo } from 'node:net';
import type { Repos } from './store/port/repos.js';

/** The URLs of the pages and docs of a server listening at `address`; the chart link names the newest traded token. */
export async function startBanner(repos: Pick<Repos, 'demo'>, address: AddressInfo): Promise<string> {
  // A wildcard address is reachable on loopback; show that, it is what a browser on this machine opens.
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  const base = `http://${address.family === 'IPv6' && host.includes(':') ? `[${host}]` : host}:${address.port}`;
  // Without an answer from the store the banner still prints, with a placeholder in the link.
  const token = await repos.demo.newestTraded().catch(() => undefined);
  const embed = token === undefined ? `${base}/embed/chart?symbol=ADDRESS&resolution=15` : `${base}/embed/chart?symbol=${token}&resolution=15`;
  return [
    `listening on ${base}`,
    `  live chart        ${base}/`,
    `  embeddable chart  ${embed}`,
    `  dashboard         ${base}/dashboard`,
    `  API docs          ${base}/docs`,
    '',
  ].join('\n');
}
