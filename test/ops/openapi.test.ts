/**
 * /openapi.json describes exactly the /v1 and /udf routes the router serves: every registered
 * layer appears with the same method, path parameters and query parameter names as its spec's
 * zod schema; every spec appears; nothing else does. /docs renders it from installed files.
 */
import type Router from '@koa/router';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openApiPath } from '../../src/http/openapi.js';
import type { RouteSpec } from '../../src/http/route.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

type Operation = {
  operationId: string;
  summary: string;
  parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  security: Record<string, unknown>[];
};
type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
};

let t: TestApp;
let doc: Doc;
beforeEach(async () => {
  t = makeTestApp();
  const res = await t.http.get('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.body as Doc;
});
afterEach(() => t.close());

// The WebSocket upgrade at /v1/stream is the one /v1 route OpenAPI cannot describe (docs/api.md, Live stream).
const isApi = (path: string) => (path.startsWith('/v1/') || path.startsWith('/udf/')) && path !== '/v1/stream';

/** The layers @koa/router actually registered, found through the app's router middleware. */
function registeredLayers(): { method: string; path: string; params: string[] }[] {
  const out: { method: string; path: string; params: string[] }[] = [];
  for (const mw of t.app.middleware as unknown as { router?: Router }[]) {
    if (!mw.router) continue;
    for (const layer of mw.router.stack) {
      for (const method of layer.methods) {
        if (method === 'HEAD') continue; // added by the router for every GET
        out.push({ method: method.toLowerCase(), path: String(layer.path), params: layer.paramNames.map((k) => String(k.name)) });
      }
    }
  }
  expect(out.length).toBeGreaterThan(0);
  return out;
}

const queryNames = (spec: RouteSpec) => Object.keys(spec.query?.shape ?? {}).sort();
const docQueryNames = (op: Operation) =>
  op.parameters
    .filter((p) => p.in === 'query')
    .map((p) => p.name)
    .sort();

describe('/openapi.json', () => {
  it('is an OpenAPI 3.1 document with an operation for every registered /v1 and /udf route', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBeTruthy();
    const specs = t.app.routes;
    const layers = registeredLayers().filter((l) => isApi(l.path));
    expect(layers.length).toBeGreaterThan(10);
    for (const layer of layers) {
      const where = `${layer.method.toUpperCase()} ${layer.path}`;
      // Declared through ApiRouter.add (so its inputs are validated by a schema) ...
      const spec = specs.find((s) => s.method === layer.method && s.path === layer.path);
      expect(spec, `${where} is registered without a route spec`).toBeDefined();
      // ... and in the document, with the same parameters as that schema.
      const op = doc.paths[openApiPath(layer.path)]?.[layer.method];
      expect(op, `${where} is missing from /openapi.json`).toBeDefined();
      expect(docQueryNames(op!), `${where} query parameters`).toEqual(queryNames(spec!));
      expect(
        op!.parameters.filter((p) => p.in === 'path').map((p) => p.name),
        `${where} path parameters`,
      ).toEqual(layer.params);
    }
  });

  it('leaves out the WebSocket upgrade, declared as one, and points to where it is described', () => {
    const stream = t.app.routes.find((s) => s.path === '/v1/stream');
    expect(stream?.upgrade).toBe('websocket');
    expect(doc.paths['/v1/stream']).toBeUndefined();
    expect((doc.info as { description?: string }).description).toContain('GET /v1/stream');
  });

  it('has every /v1 and /udf spec, and nothing that is not one', () => {
    const specs = t.app.routes.filter((s) => isApi(s.path));
    expect(specs.length).toBeGreaterThan(10);
    for (const spec of specs) {
      const op = doc.paths[openApiPath(spec.path)]?.[spec.method];
      expect(op, `${spec.method} ${spec.path}`).toBeDefined();
      expect(op!.summary).toBe(spec.summary);
      expect(docQueryNames(op!)).toEqual(queryNames(spec));
      expect(op!.requestBody !== undefined).toBe(spec.body !== undefined);
    }
    const documented = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(documented).toBe(specs.length);
    for (const path of Object.keys(doc.paths)) expect(isApi(path)).toBe(true);
  });

  it('marks required and optional query parameters as the schemas do', () => {
    for (const spec of t.app.routes.filter((s) => isApi(s.path) && s.query)) {
      const op = doc.paths[openApiPath(spec.path)]![spec.method]!;
      for (const [name, field] of Object.entries(spec.query!.shape)) {
        const accepts = (field as { safeParse(v: unknown): { success: boolean } }).safeParse(undefined).success;
        expect(op.parameters.find((p) => p.name === name)!.required, `${spec.path} ${name}`).toBe(!accepts);
      }
    }
  });

  it('describes query parameters as strings, with the pattern or values the validator enforces', () => {
    const history = doc.paths['/udf/history']!.get!;
    const param = (name: string) => history.parameters.find((p) => p.name === name)!;
    expect(param('to').schema).toMatchObject({ type: 'string', pattern: '^(0|[1-9][0-9]*)$' });
    expect(param('resolution').schema).toMatchObject({ type: 'string' });
    expect(param('resolution').schema.enum).toContain('1D');
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const op of Object.values(ops)) {
        for (const p of op.parameters) expect(p.schema.type, `${path} ${p.name}`).toBe('string');
      }
    }
    // Values the pattern admits are exactly what the validator admits as numbers.
    const re = new RegExp(String(param('to').schema.pattern));
    for (const bad of ['1e3', '0x10', '-0', '-1', '010', ' 10', '1.5']) expect(re.test(bad), bad).toBe(false);
    expect(re.test('1700000000')).toBe(true);
  });

  it('has unique operation ids and only references that resolve', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      let node: unknown = doc;
      for (const part of ref.split('/')) node = (node as Record<string, unknown> | undefined)?.[part];
      expect(node, ref).toBeDefined();
    }
    for (const [path, ops] of Object.entries(doc.paths)) {
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(ops)) expect(op.parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(templated);
    }
  });

  it('declares security only on keyed routes (no padlock on public ones), and says where a key may still go', () => {
    for (const spec of t.app.routes.filter((s) => isApi(s.path))) {
      const op = doc.paths[openApiPath(spec.path)]![spec.method]! as (typeof doc.paths)[string][string] & { description?: string };
      if (spec.access === 'key') {
        expect(
          op.security.map((s) => Object.keys(s)[0]),
          spec.path,
        ).toEqual(['apiKey', 'bearer']);
      } else {
        expect(op.security, spec.path).toEqual([]);
        expect(op.description, spec.path).toMatch(/^Public: no key needed/);
        expect(op.description!.includes('?key=')).toBe(spec.path.startsWith('/udf/'));
      }
      expect(Object.keys(op.responses)).toContain('429');
    }
    expect(Object.keys(doc.components.securitySchemes!).sort()).toEqual(['apiKey', 'bearer']);
  });

  it('lists the tags in the order of the README', () => {
    const names = (doc as unknown as { tags: { name: string }[] }).tags.map((tag) => tag.name);
    expect(names.slice(0, 6)).toEqual(['tokens', 'market', 'udf', 'account', 'subscriptions', 'ingest']);
  });

  it('answers with an ETag and 304 on If-None-Match, like other GET JSON', async () => {
    const first = await t.http.get('/openapi.json');
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}(-[a-z]+)?"$/);
    const again = await t.http.get('/openapi.json').set('If-None-Match', first.headers.etag!);
    expect(again.status).toBe(304);
  });
});

describe('/docs', () => {
  it('is a page of Swagger UI from files this server serves (no CDN) pointing at /openapi.json', async () => {
    const page = await t.http.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(page.text).not.toMatch(/https?:\/\//);
    const assets = [...page.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(
      expect.arrayContaining(['/assets/docs/swagger-ui-bundle.js', '/assets/docs/swagger-ui.css', '/assets/docs/init.js', '/assets/css/docs.css']),
    );
    for (const url of assets) {
      const res = await t.http.get(url).buffer(true);
      expect(res.status, url).toBe(200);
      const size = Buffer.isBuffer(res.body) ? res.body.length : (res.text ?? '').length;
      expect(size, url).toBeGreaterThan(100);
    }
    const init = await t.http.get('/assets/docs/init.js');
    expect(init.text).toContain("url: '/openapi.json'");
    expect(init.text).toContain('validatorUrl: null');
    expect(init.headers['content-type']).toMatch(/javascript/);
  });

  it('serves its files uncounted by the limiter, with ETags', async () => {
    const before = await t.http.get('/udf/time');
    const remaining = Number(before.headers['ratelimit-remaining']);
    const css = await t.http.get('/assets/docs/swagger-ui.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    await t.http.get('/assets/docs/swagger-ui-bundle.js');
    expect(Number(css.headers['ratelimit-remaining'])).toBe(remaining);
    const cached = await t.http.get('/assets/docs/swagger-ui.css').set('If-None-Match', css.headers.etag!);
    expect(cached.status).toBe(304);
    expect(Number(cached.headers['ratelimit-remaining'])).toBe(remaining);
  });

  it('has no files but its own under /assets/docs/', async () => {
    for (const path of [
      '/assets/docs/index.html',
      '/assets/docs/../../package.json',
      '/assets/docs/swagger-ui-bundle.js.map',
      '/assets/docs/%2e%2e/%2e%2e/package.json',
    ]) {
      const res = await t.http.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});
