/** Shared bits of the auth tests: the route classes, key channels and the 401 assertion. */
import { expect } from 'vitest';
import type { Response } from 'supertest';
import { anAddress } from '../helpers/builders.js';

/** One path per access class. The public and UDF ones need not exist: the 401 comes first. */
export const ROUTES = {
  public: `/v1/token/${anAddress('pub')}/overview`,
  udf: '/udf/history?symbol=BONK&resolution=15&from=1699990000&to=1700000000',
  keyed: '/v1/me',
} as const;
export type RouteClass = keyof typeof ROUTES;

/** Asserts the contract's 401: code, WWW-Authenticate, envelope (and the UDF form on /udf). */
export function expectUnauthorized(res: Response, path: string): void {
  expect(res.status, `${path} -> ${res.status} ${JSON.stringify(res.body)}`).toBe(401);
  expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
  expect(res.body.error.code).toBe('unauthorized');
  expect(typeof res.body.error.requestId).toBe('string');
  if (path.startsWith('/udf')) expect(res.body.s).toBe('error');
}

/** A well-formed key that was never issued. */
export const unknownKey = (): string => 'svc_live_' + 'Zz9'.repeat(14);

export const withQuery = (path: string, extra: string): string => path + (path.includes('?') ? '&' : '?') + extra;
