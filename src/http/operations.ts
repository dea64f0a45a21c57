/**
 * Operations: `/metrics` (Prometheus text), `/openapi.json` (OpenAPI 3.1 of every /v1 and /udf
 * route, built from the route specs) and `/docs` (Swagger UI from the installed swagger-ui-dist
 * package, served under /assets/docs/: no CDN, and the limiter does not count /assets/).
 *
 * /metrics needs no key (operators scrape it) and is counted by the limiter like any other route:
 * a scrape every 15 s uses 4 of an IP's 300 requests a minute. It shows no tenant or key ids.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeModulesDir, projectRoot } from '../paths.js';
import { buildOpenApi } from './openapi.js';
import { ApiRouter, type RouteSpec } from './route.js';
import { sendStatic, staticFile, type StaticFile } from './static-file.js';
import type { Services } from '../services/index.js';

const SWAGGER_DIR = join(nodeModulesDir, 'swagger-ui-dist');
const VENDOR_CACHE = 'public, max-age=86400';

/** Swagger UI's start-up: our document, no outside validator badge (which would call out). */
const INIT_JS = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

// The app's own header and dark theme (app.css, then docs.css over Swagger UI's light styles).
const DOCS_HTML = `<!doctype html>
<html lang="en" data-theme="dark">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Token charts</title>
<link rel="stylesheet" href="/assets/docs/swagger-ui.css">
<link rel="stylesheet" href="/assets/css/app.css">
<link rel="stylesheet" href="/assets/css/docs.css">
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
</head>
<body class="docs">
<header class="topbar">
  <a class="brand" href="/">Token charts</a>
  <span class="muted">API reference</span>
  <nav><a href="/">Live chart</a><a href="/dashboard">Dashboard</a><a href="/openapi.json">openapi.json</a></nav>
</header>
<div id="swagger-ui"></div>
<script src="/assets/docs/swagger-ui-bundle.js"></script>
<script src="/assets/docs/init.js"></script>
</body>
</html>
`;

/** Swagger UI sets inline styles; everything else comes from this origin. */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
  "frame-ancestors 'self'",
].join('; ');

/**
 * The docs page's files by name; read and compressed once per process and kept: at start by
 * `warmDocsFiles()` (the server calls it), else on first use.
 */
const DOCS_FILES: Record<string, () => StaticFile> = {
  'swagger-ui.css': () => staticFile(readFileSync(join(SWAGGER_DIR, 'swagger-ui.css')), 'text/css; charset=utf-8', VENDOR_CACHE),
  'swagger-ui-bundle.js': () => staticFile(readFileSync(join(SWAGGER_DIR, 'swagger-ui-bundle.js')), 'text/javascript; charset=utf-8', VENDOR_CACHE),
  'favicon-32x32.png': () => staticFile(readFileSync(join(SWAGGER_DIR, 'favicon-32x32.png')), 'image/png', VENDOR_CACHE),
  'init.js': () => staticFile(Buffer.from(INIT_JS), 'text/javascript; charset=utf-8', 'no-cache'),
};
const loaded = new Map<string, StaticFile>();

function docsFile(name: string): StaticFile {
  let file = loaded.get(name);
  if (file === undefined) {
    file = DOCS_FILES[name]!();
    loaded.set(name, file);
  }
  return file;
}

/**
 * Reads the docs files and starts compressing them (zlib's thread pool), so the first visitor of
 * /docs after a start gets the 1.7 MB Swagger UI bundle compressed; resolves once every coding is ready.
 */
export async function warmDocsFiles(): Promise<void> {
  await Promise.all(Object.keys(DOCS_FILES).map((name) => docsFile(name).ready));
}

function packageVersion(): string {
  try {
    return String((JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version?: unknown }).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
}

/** `specs` are the app's other routes, for /openapi.json; the router's own are in its `specs`. */
export function operationsRouter(deps: { services: Pick<Services, 'metrics'> }, specs: readonly RouteSpec[]): ApiRouter {
  const { metrics } = deps.services;
  let document: Record<string, unknown> | null = null;
  const docsPage = staticFile(Buffer.from(DOCS_HTML), 'text/html; charset=utf-8', 'no-cache');
  const api = new ApiRouter();

  api.add({ method: 'get', path: '/metrics', summary: 'Prometheus metrics', access: 'internal', tag: 'operations' }, async (_input, ctx) => {
    const text = await metrics.scrape();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.contentType;
    ctx.body = text;
  });

  api.add(
    { method: 'get', path: '/openapi.json', summary: 'OpenAPI 3.1 document of the /v1 and /udf routes', access: 'public', tag: 'operations' },
    (_input, ctx) => {
      ctx.set('Cache-Control', 'public, max-age=300');
      return (document ??= buildOpenApi(specs, { version: packageVersion() }));
    },
  );

  api.add({ method: 'get', path: '/docs', summary: 'API reference (Swagger UI)', access: 'public', tag: 'operations' }, (_input, ctx) => {
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('Referrer-Policy', 'same-origin');
    sendStatic(ctx, docsPage);
  });

  for (const name of Object.keys(DOCS_FILES)) {
    api.router.get(`/assets/docs/${name}`, async (ctx) => {
      ctx.state.route = '/assets/docs/*';
      const file = docsFile(name);
      // Never the bundle uncompressed to a client that takes a coding: wait for the one it takes
      // (well under a second) when the start's warming has not got that far yet. Wait for the
      // client's own coding, not the first ready: under load brotli may finish before gzip.
      const wanted = ctx.acceptsEncodings('br', 'gzip');
      if (wanted === 'br' || wanted === 'gzip') await file.coding[wanted];
      sendStatic(ctx, file);
    });
  }
  return api;
}
