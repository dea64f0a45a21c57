/**
 * The static-path dispatch (src/http/static-routes.ts) answers exactly as @koa/router would: the
 * routes of a plain path by one lookup, and everything the lookup must not decide (another
 * pattern that matches first, a trailing slash, another case, a method the path does not serve)
 * by the router.
 */
import Koa from 'koa';
import Router from '@koa/router';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { staticFirst } from '../../src/http/static-routes.js';
import type { AppState } from '../../src/http/types.js';
import { makeTestApp } from '../helpers/make-test-app.js';

function appOf(build: (root: Router<AppState>) => void) {
  const root = new Router<AppState>();
  build(root);
  const app = new Koa<AppState>();
  app.use(staticFirst(root));
  app.use(root.allowedMethods());
  return request(app.callback());
}

describe('static-path dispatch', () => {
  it('runs a plain path route, with the empty params the router gives it', async () => {
    const http = appOf((root) => root.get('/a/b', (ctx) => void (ctx.body = { params: ctx.params })));
    expect((await http.get('/a/b').expect(200)).body).toEqual({ params: {} });
    await http.head('/a/b').expect(200);
  });

  it('leaves a path another pattern also matches to the router, which runs that one first', async () => {
    const http = appOf((root) => {
      root.get('/:name/b', (ctx) => void (ctx.body = { by: 'pattern', name: ctx.params.name }));
      root.get('/a/b', (ctx) => void (ctx.body = { by: 'plain' }));
    });
    expect((await http.get('/a/b').expect(200)).body).toEqual({ by: 'pattern', name: 'a' });
  });

  it('leaves a trailing slash, another case and unserved methods to the router', async () => {
    const http = appOf((root) => root.get('/a/b', (ctx) => void (ctx.body = { path: ctx.path })));
    expect((await http.get('/a/b/').expect(200)).body).toEqual({ path: '/a/b/' });
    expect((await http.get('/A/B').expect(200)).body).toEqual({ path: '/A/B' });
    const refused = await http.post('/a/b').expect(405);
    expect(refused.headers.allow).toBe('HEAD, GET');
    const options = await http.options('/a/b').expect(200);
    expect(options.headers.allow).toBe('HEAD, GET');
  });

  describe('in the app', () => {
    const t = makeTestApp();
    afterAll(() => t.close());

    it('serves /udf/time by lookup and /udf/time/ by the router, the same answer', async () => {
      const direct = await t.http.get('/udf/time').expect(200);
      const routed = await t.http.get('/udf/time/').expect(200);
      expect(direct.text).toMatch(/^\d+$/);
      expect(routed.text).toMatch(/^\d+$/);
      expect(direct.headers['content-type']).toBe(routed.headers['content-type']);
    });

    it('answers a method /udf/history does not serve with 405 and its Allow', async () => {
      const res = await t.http.delete('/udf/history').expect(405);
      expect(res.headers.allow).toBe('HEAD, GET');
      expect(res.body.error.code).toBe('method_not_allowed');
    });
  });
});
