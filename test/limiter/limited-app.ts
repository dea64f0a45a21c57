/**
 * A test app for the limiter's HTTP tests: makeTestApp() (the real middleware chain) with three
 * counted probe routes appended after the routers, so every status can be produced on a counted
 * request whatever the real routes are: GET /probe/ok (200), /probe/bad (400), /probe/boom (500).
 */
import request from 'supertest';
import { invalidParameter } from '../../src/errors.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

/** `http` is rebuilt after the probes are added (the callback composes the middleware once). */
export type LimitedApp = TestApp;

export function limitedApp(env: Record<string, string> = {}): LimitedApp {
  const t = makeTestApp({ env: { RATE_LIMIT_ANON: '5/60', ...env } });
  t.app.use(async (ctx, next) => {
    if (ctx.method !== 'GET') return next();
    if (ctx.path === '/probe/ok') ctx.body = { ok: true };
    else if (ctx.path === '/probe/bad') throw invalidParameter('limit', 'limit must be an integer from 1 to 1000');
    else if (ctx.path === '/probe/boom') throw new Error('boom');
    else return next();
  });
  return { ...t, http: request(t.app.callback()) };
}

/** The four RateLimit-* headers of a response, as numbers where they are numbers. */
export function limits(res: { headers: Record<string, string | string[] | undefined> }) {
  const num = (name: string) => (res.headers[name] === undefined ? undefined : Number(res.headers[name]));
  return {
    limit: num('ratelimit-limit'),
    remaining: num('ratelimit-remaining'),
    reset: num('ratelimit-reset'),
    policy: res.headers['ratelimit-policy'],
  };
}

/** A plan with a small limit, so a tenant's bucket can be emptied in a test. */
export function addPlan(t: TestApp, name: string, requestsPerMinute: number): void {
  t.store.db.prepare('INSERT INTO plans (name, requests_per_minute, max_keys, max_subscriptions) VALUES (?, ?, 10, 10)').run(name, requestsPerMinute);
}
