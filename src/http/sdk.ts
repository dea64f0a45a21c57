/**
 * /sdk/datafeed.js and /sdk/datafeed.d.ts (docs/api.md, Live stream): the first-party TradingView
 * datafeed as an ES module and its types. Public, with the CORS headers of every public route, so
 * a partner page on any origin can import it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../paths.js';
import { ApiRouter } from './route.js';
import { sendStatic, staticFile } from './static-file.js';

const SDK_CACHE = 'public, max-age=300';

const FILES = [
  { path: '/sdk/datafeed.js', file: 'datafeed.js', type: 'text/javascript; charset=utf-8' },
  { path: '/sdk/datafeed.d.ts', file: 'datafeed.d.ts', type: 'text/plain; charset=utf-8' },
] as const;

export function sdkRouter(): ApiRouter {
  const api = new ApiRouter();
  for (const f of FILES) {
    const body = staticFile(readFileSync(join(projectRoot, 'src', 'sdk', f.file)), f.type, SDK_CACHE);
    api.add({ method: 'get', path: f.path, summary: `The first-party datafeed: ${f.file}`, access: 'public', tag: 'sdk' }, (_input, ctx) =>
      sendStatic(ctx, body),
    );
  }
  return api;
}
