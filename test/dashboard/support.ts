/**
 * Helpers for the dashboard API tests: tenants with a password, signing in through the real
 * route, and the session cookie and CSRF token that a browser would hold.
 */
import type { Response } from 'supertest';
import type { TestApp } from '../helpers/make-test-app.js';

export const PASSWORD = 'correct horse battery staple';
let n = 0;

/** A tenant with an email and a password set (as `tenants set-password` does). */
export async function aTenantWithPassword(t: TestApp, opts: { plan?: string; email?: string; password?: string } = {}) {
  const email = opts.email ?? `owner${++n}@example.com`;
  const tenant = await t.services.accounts.createTenant({ name: `Tenant ${n}`, plan: opts.plan ?? 'free', email });
  await t.services.accounts.setPassword(tenant.id, opts.password ?? PASSWORD);
  return { tenant, email, password: opts.password ?? PASSWORD };
}

/** The Set-Cookie line of the session cookie, or undefined. */
export function sessionSetCookie(res: Response): string | undefined {
  const raw = res.headers['set-cookie'] as unknown as string[] | undefined;
  return raw?.find((c) => c.startsWith('svc_session='));
}

export type Signed = { cookie: string; csrf: string; res: Response };

/** Signs in through POST /dashboard/api/sign-in; fails the test unless it answers 200. */
export async function signIn(t: TestApp, email: string, password = PASSWORD, headers: Record<string, string> = {}): Promise<Signed> {
  const res = await t.http.post('/dashboard/api/sign-in').set(headers).send({ email, password });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(res.body)}`);
  const line = sessionSetCookie(res);
  if (!line) throw new Error('sign-in set no session cookie');
  return { cookie: line.split(';')[0]!, csrf: res.body.csrfToken as string, res };
}

/** A signed-in tenant, ready for calls. */
export async function signedInTenant(t: TestApp, opts: { plan?: string } = {}) {
  const made = await aTenantWithPassword(t, opts);
  const s = await signIn(t, made.email);
  return { ...made, ...s };
}
