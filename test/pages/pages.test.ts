/**
 * The pages and their static files over HTTP: content types, CSP and framing rules, caching,
 * everything served locally (no CDN), no key in page code, and the limiter not counting assets.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { loadAssets } from '../../src/http/pages.js';
import { nodeModulesDir } from '../../src/paths.js';

let t: TestApp;
afterEach(() => t?.close());

const ADDRESS = 'So11111111111111111111111111111111111111112';
const PAGES = ['/', `/embed/chart?symbol=${ADDRESS}`, '/dashboard'];

const cspOf = (res: { headers: Record<string, string> }) =>
  Object.fromEntries(
    res.headers['content-security-policy']!.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values.join(' ')];
    }),
  );

describe('pages', () => {
  it.each(PAGES)('serves %s as HTML that loads only this origin’s scripts and styles', async (path) => {
    t = makeTestApp();
    const res = await t.http.get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const csp = cspOf(res);
    expect(csp['default-src']).toBe("'none'");
    expect(csp['script-src']).toBe("'self'");
    expect(csp['style-src']).toBe("'self'");
    expect(csp['connect-src']).toBe("'self'");
    const refs = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    const loaded = [...res.text.matchAll(/<(?:script|link)[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(loaded.length).toBeGreaterThan(0);
    for (const ref of loaded) expect(ref).toMatch(/^\/assets\//);
    // Every local reference resolves.
    for (const ref of refs.filter((r) => r.startsWith('/assets/'))) expect((await t.http.get(ref)).status, ref).toBe(200);
    expect(res.text).not.toMatch(/<script>|<style>|\son\w+=/); // no inline code for the CSP to allow
  });

  it('lets any origin frame the embed (frame-ancestors *, no X-Frame-Options)', async () => {
    t = makeTestApp();
    const res = await t.http.get(`/embed/chart?symbol=${ADDRESS}&resolution=15&theme=light`);
    expect(res.status).toBe(200);
    expect(cspOf(res)['frame-ancestors']).toBe('*');
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('lets nobody frame the dashboard and never caches it', async () => {
    t = makeTestApp();
    const res = await t.http.get('/dashboard');
    expect(cspOf(res)['frame-ancestors']).toBe("'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('lets only this origin frame the home page', async () => {
    t = makeTestApp();
    const res = await t.http.get('/');
    expect(cspOf(res)['frame-ancestors']).toBe("'self'");
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it.each([
    ['/embed/chart', 'symbol', 'symbol is required'],
    [`/embed/chart?symbol=${ADDRESS}&theme=blue`, 'theme', 'theme must be one of dark, light'],
    [`/embed/chart?symbol=${ADDRESS}&resolution=7`, 'resolution', 'resolution must be one of'],
    [`/embed/chart?symbol=${ADDRESS}&symbol=${ADDRESS}`, 'symbol', 'symbol must be given once'],
    [`/embed/chart?symbol=${'x'.repeat(65)}`, 'symbol', 'symbol must have 1 to 64 characters'],
    ['/?resolution=15&resolution=60', 'resolution', 'resolution must be given once'],
  ])('answers %s with 400 invalid_parameter', async (path, param, message) => {
    t = makeTestApp();
    const res = await t.http.get(path);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
    expect(res.body.error.message).toContain(message);
  });

  it('answers a page with an ETag and a matching If-None-Match with 304', async () => {
    t = makeTestApp();
    const first = await t.http.get('/');
    // A page's ETag is the SHA-1 of its bytes (base64url), quoted, with the coding's suffix when compressed.
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}(-[a-z]+)?"$/);
    const again = await t.http.get('/').set('If-None-Match', first.headers.etag!);
    expect(again.status).toBe(304);
  });
});

describe('static files under /assets/', () => {
  it('serves lightweight-charts from the installed package, byte for byte, with a long cache', async () => {
    t = makeTestApp();
    const res = await t.http.get('/assets/vendor/lightweight-charts.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    const file = readFileSync(join(nodeModulesDir, 'lightweight-charts', 'dist', 'lightweight-charts.standalone.production.js'));
    expect(res.text === file.toString('utf8')).toBe(true);
  });

  it('compresses a large asset when the client accepts it', async () => {
    t = makeTestApp();
    // Compressed once off the event loop when the app is made; until then the file goes as is.
    let res = await t.http.get('/assets/vendor/lightweight-charts.js').set('Accept-Encoding', 'gzip');
    for (let i = 0; i < 200 && res.headers['content-encoding'] === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await t.http.get('/assets/vendor/lightweight-charts.js').set('Accept-Encoding', 'gzip');
    }
    expect(res.headers['content-encoding']).toBe('gzip');
  });

  it('serves the project’s assets with a short cache and answers If-None-Match with 304', async () => {
    t = makeTestApp();
    const res = await t.http.get('/assets/js/chart.js');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const again = await t.http.get('/assets/js/chart.js').set('If-None-Match', res.headers.etag!);
    expect(again.status).toBe(304);
    const css = await t.http.get('/assets/css/app.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it.each([
    '/assets/js/nope.js',
    '/assets/../package.json',
    '/assets/%2e%2e/package.json',
    '/assets/',
    '/assets/js/../../http/pages.ts',
    '/src/web/index.html',
  ])('answers %s with 404', async (path) => {
    t = makeTestApp();
    const res = await t.http.get(path);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('does not count assets against the rate limit, but still sends the bucket’s headers', async () => {
    t = makeTestApp({ env: { RATE_LIMIT_ANON: '3/60' } });
    for (let i = 0; i < 10; i++) {
      const res = await t.http.get('/assets/css/app.css');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('3');
      expect(res.headers['ratelimit-remaining']).toBe('3');
    }
    expect((await t.http.get('/')).status).toBe(200);
  });

  it('every JS module import resolves to a served file', async () => {
    t = makeTestApp();
    const assets = loadAssets();
    for (const [url, file] of assets) {
      if (!url.endsWith('.js') || url.includes('/vendor/')) continue;
      for (const m of file.body.toString('utf8').matchAll(/^import[^'"]*['"](\.[^'"]+)['"]/gm)) {
        const target = new URL(m[1]!, `http://x${url}`).pathname;
        expect(assets.has(target), `${url} imports ${target}`).toBe(true);
      }
    }
  });

  it('no page or asset of ours holds an API key or loads anything from another host', async () => {
    t = makeTestApp();
    for (const [url, file] of loadAssets()) {
      if (url.includes('/vendor/')) continue;
      const text = file.body.toString('utf8');
      expect(text, url).not.toMatch(/svc_live_[0-9A-Za-z]{8,}/);
      expect(text, url).not.toMatch(/\bimport\b[^;]*['"]https?:/);
      expect(text, url).not.toMatch(/fetch\(\s*['"`]https?:/);
    }
    for (const page of ['index.html', 'embed.html', 'dashboard.html']) {
      const text = (await t.http.get(page === 'index.html' ? '/' : page === 'embed.html' ? `/embed/chart?symbol=${ADDRESS}` : '/dashboard')).text;
      expect(text).not.toMatch(/svc_live_[0-9A-Za-z]{8,}/);
      expect(text).not.toMatch(/<(?:script|link)[^>]+(?:src|href)="https?:/);
    }
  });
});
