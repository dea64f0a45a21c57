/**
 * Pages (docs/api.md, Pages): `/` the live chart, `/embed/chart` the chart alone for partner
 * iframes, `/dashboard` the key and subscription dashboard, and their static files under
 * /assets/ (the project's own from src/web/assets, lightweight-charts from node_modules): no CDN,
 * so the pages work offline.
 *
 * Files are read once when the app is built and served from memory with an ETag. Each page has
 * its own Content-Security-Policy: scripts, styles and requests from this origin only; the embed
 * may be framed by any origin, the dashboard by none.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { z } from 'zod';
import { nodeModulesDir, webDir } from '../paths.js';
import { SUPPORTED_RESOLUTIONS } from '../domain/resolution.js';
import { ApiRouter } from './route.js';
import { enumParam, textParam } from './validate.js';
import { sendStatic, staticFile, type StaticFile } from './static-file.js';
import { requestHasBody } from './body.js';
import { errors } from '../errors.js';
import type { AppContext } from './types.js';

/** Assets take no body (docs/api.md, Limits); one is refused before it is read (the router does it for the pages). */
const noBody = (ctx: AppContext) => {
  if (requestHasBody(ctx)) throw errors.bodyNotAllowed();
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** Own assets are not content-hashed (no build step): cached briefly, then revalidated by ETag. */
const OWN_ASSET_CACHE = 'public, max-age=300';
/** The vendored chart library changes only with the installed package. */
const VENDOR_CACHE = 'public, max-age=86400';
/** Pages are always revalidated, so a deploy shows at once; the dashboard is never stored. */
const PAGE_CACHE = 'no-cache';
const PRIVATE_PAGE_CACHE = 'no-store';

export const VENDOR_FILES: Record<string, string> = {
  '/assets/vendor/lightweight-charts.js': join(nodeModulesDir, 'lightweight-charts', 'dist', 'lightweight-charts.standalone.production.js'),
};

const BASE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
];

/** The Content-Security-Policy of each page; frame-ancestors differs. */
export const PAGE_CSP = {
  home: [...BASE_CSP, "frame-ancestors 'self'"].join('; '),
  embed: [...BASE_CSP, 'frame-ancestors *'].join('; '),
  dashboard: [...BASE_CSP, "frame-ancestors 'none'"].join('; '),
} as const;

function fileOf(path: string, cacheControl: string): StaticFile {
  return staticFile(readFileSync(path), TYPES[extname(path)] ?? 'application/octet-stream', cacheControl);
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

/** Every static file by its URL path: the project's assets and the vendored packages. */
export function loadAssets(): Map<string, StaticFile> {
  const assets = new Map<string, StaticFile>();
  const root = join(webDir, 'assets');
  for (const file of walk(root)) assets.set('/assets/' + relative(root, file).split(sep).join('/'), fileOf(file, OWN_ASSET_CACHE));
  for (const [url, file] of Object.entries(VENDOR_FILES)) assets.set(url, fileOf(file, VENDOR_CACHE));
  return assets;
}

const resolutionParam = enumParam(SUPPORTED_RESOLUTIONS);
const themeParam = enumParam(['dark', 'light'] as const);
const homeQuery = z.object({ symbol: textParam(1, 64).optional(), resolution: resolutionParam.optional() });
const embedQuery = z.object({ symbol: textParam(1, 64), resolution: resolutionParam.optional(), theme: themeParam.optional() });

export function pagesRouter(): ApiRouter {
  const api = new ApiRouter();
  const assets = loadAssets();
  const page = (name: string) => fileOf(join(webDir, name), name === 'dashboard.html' ? PRIVATE_PAGE_CACHE : PAGE_CACHE);
  const home = page('index.html');
  const embed = page('embed.html');
  const dashboard = page('dashboard.html');

  for (const [url, file] of assets) {
    api.router.get(url, (ctx) => {
      ctx.state.route = '/assets/*';
      noBody(ctx);
      sendStatic(ctx, file);
    });
  }

  // The pages check their query so a bad link gets a clear 400, although the page reads it itself.
  api.add({ method: 'get', path: '/', summary: 'The live chart', access: 'public', tag: 'pages', query: homeQuery }, (_input, ctx) => {
    ctx.set('Content-Security-Policy', PAGE_CSP.home);
    ctx.set('X-Frame-Options', 'SAMEORIGIN');
    ctx.set('Referrer-Policy', 'same-origin');
    sendStatic(ctx, home);
  });

  api.add(
    { method: 'get', path: '/embed/chart', summary: 'The chart alone, for partner iframes', access: 'public', tag: 'pages', query: embedQuery },
    (_input, ctx) => {
      // Frameable from any origin: frame-ancestors *, and no X-Frame-Options.
      ctx.set('Content-Security-Policy', PAGE_CSP.embed);
      ctx.set('Referrer-Policy', 'no-referrer');
      sendStatic(ctx, embed);
    },
  );

  api.add({ method: 'get', path: '/dashboard', summary: 'The key and subscription dashboard', access: 'public', tag: 'pages' }, (_input, ctx) => {
    ctx.set('Content-Security-Policy', PAGE_CSP.dashboard);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    sendStatic(ctx, dashboard);
  });

  return api;
}
