/**
 * The dashboard's cookie-authenticated JSON routes under /dashboard/api/ (docs/api.md, Pages).
 * The page itself (/dashboard) is served by pages.ts.
 *
 * Sign-in takes a tenant's email and password (scrypt, accounts.checkPassword) in a body of at
 * most 4 KB, is throttled as sessions.ts says (every attempt per IP before the body is read;
 * failures per IP and account; a growing delay, never a lockout, per account), and starts a session: an httpOnly, SameSite=Strict cookie holding a random id whose
 * hash only is stored. Every state-changing call needs the session's CSRF token in the
 * X-CSRF-Token header, and is refused when the browser says it comes from another site.
 * Keys and subscriptions go through the same services as /v1/keys and /v1/tokens/*.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { errors } from '../errors.js';
import { GRANTABLE_SCOPES } from '../services/accounts.js';
import { sameSecret, SESSION_DEFAULTS, type Session } from '../services/sessions.js';
import type { Plan, Tenant } from '../store/port/repos.js';
import { bodyObject, bodyString, bodyText } from './body.js';
import { clientIp } from './client-ip.js';
import { ApiRouter } from './route.js';
import { tenantRate, toRateLimitState } from './rate-limit.js';
import { createKeyBody, keyPath, rotateKeyBody } from './v1/account.js';
import { registerBody, registeredAnswer, registeredKey, registeredPath } from './v1/subscriptions.js';
import type { AppContext } from './types.js';
import type { Services } from '../services/index.js';
import type { Limiter } from '../limiter/limiter.js';
import type { AsyncLimiter } from '../limiter/redis-gcra.js';

export const SESSION_COOKIE = 'svc_session';
export const CSRF_HEADER = 'X-CSRF-Token';
/** Largest sign-in body (docs/api.md, Pages): an email and a password fit many times over. */
export const SIGN_IN_BODY_BYTES = 4096;

/** 429 for a throttled sign-in; it closes the connection, so a body still on its way is not read. */
const tooMany = (message: string, wait: number) => errors.rateLimited(message, wait, { close: true });

const signInBody = bodyObject({ email: bodyText(3, 254), password: bodyString(1, 1024) });

/**
 * 401 for the dashboard. It signs in with a cookie, but every 401 carries the contract's challenge
 * (docs/api.md, Authentication and keys; HTTP requires one), and a Bearer challenge opens no browser dialog.
 */
const signedOut = (message = 'sign in first') => errors.unauthorized(message);

type Signed = { session: Session; token: string; tenant: Tenant; plan: Plan };

function setSessionCookie(ctx: AppContext, value: string, maxAgeSeconds: number): void {
  const parts = [`${SESSION_COOKIE}=${value}`, 'Path=/dashboard', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (ctx.secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

/**
 * Refuses a state-changing request that a browser marks as coming from another site (Origin of
 * another host, or Sec-Fetch-Site cross-site). The CSRF token is the main defence; this one also
 * covers sign-in, which has no session yet.
 */
function assertSameOrigin(ctx: AppContext): void {
  const site = ctx.get('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site') throw errors.forbidden('cross-site requests are not allowed here');
  const origin = ctx.get('origin');
  if (origin === '') return;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    host = null;
  }
  if (host !== ctx.host) throw errors.forbidden('cross-origin requests are not allowed here');
}

export function dashboardRouter(deps: {
  services: Pick<Services, 'accounts' | 'subscriptions' | 'sessions' | 'signInThrottle' | 'chains'>;
  limiter: Limiter | AsyncLimiter;
}): ApiRouter<Signed> {
  const { accounts, subscriptions, sessions, signInThrottle: throttle, chains } = deps.services;
  /** The signed-in tenant of a `session` route; a state-changing one also needs the CSRF token and the same origin. */
  const signedIn = async (ctx: AppContext, write: boolean): Promise<Signed> => {
    ctx.set('Cache-Control', 'no-store');
    const token = ctx.cookies.get(SESSION_COOKIE) ?? '';
    const session = token === '' ? null : await sessions.find(token);
    const tenant = session ? await accounts.tenant(session.tenantId) : undefined;
    const plan = tenant ? await accounts.plan(tenant.plan) : undefined;
    if (!session || !tenant || !plan) {
      if (token !== '') setSessionCookie(ctx, '', 0);
      throw signedOut(token === '' ? 'sign in first' : 'the session has ended; sign in again');
    }
    if (write) {
      assertSameOrigin(ctx);
      const csrf = ctx.get(CSRF_HEADER);
      if (csrf === '' || !sameSecret(csrf, session.csrfToken)) throw errors.forbidden(`the ${CSRF_HEADER} header is missing or wrong`);
    }
    return { session, token, tenant, plan };
  };
  const api = new ApiRouter<Signed>({ session: signedIn });

  const sessionView = (s: Signed | { session: Session; tenant: Tenant }) => ({
    tenant: { id: s.tenant.id, name: s.tenant.name, plan: s.tenant.plan, email: s.tenant.email },
    csrfToken: s.session.csrfToken,
    expiresAt: s.session.expiresAt,
  });

  api.add(
    {
      method: 'post',
      path: '/dashboard/api/sign-in',
      summary: 'Sign in with a tenant email and password',
      // Public: it is what starts a session. Its checks run before a byte of the body is read.
      access: 'public',
      tag: 'dashboard',
      body: signInBody,
      bodyLimit: SIGN_IN_BODY_BYTES,
      admit: async (ctx) => {
        ctx.set('Cache-Control', 'no-store');
        assertSameOrigin(ctx);
        // Every attempt counts against the IP (the limiter's notion of the client: TRUST_PROXY applied, IPv6 grouped by /56).
        const admitted = await throttle.admit(clientIp(ctx).address);
        if (admitted.wait > 0) throw tooMany(`too many sign-in attempts from this address; retry in ${admitted.wait} s`, admitted.wait);
      },
    },
    async ({ body }, ctx) => {
      const ip = clientIp(ctx).address;
      const email = body.email.trim().toLowerCase();
      // Counted as failed before the (slow) password check, so concurrent guesses count too.
      const attempt = await throttle.begin(ip, email);
      if (attempt.wait > 0) throw tooMany(`too many failed sign-ins; retry in ${attempt.wait} s`, attempt.wait);
      if (attempt.delayMs > 0) await sleep(attempt.delayMs);
      const tenant = await accounts.checkPassword(email, body.password);
      if (!tenant) throw signedOut('wrong email or password');
      await attempt.succeeded();
      const previous = ctx.cookies.get(SESSION_COOKIE);
      if (previous) await sessions.destroy(previous);
      const made = await sessions.create(tenant.id);
      setSessionCookie(ctx, made.token, SESSION_DEFAULTS.absoluteSeconds);
      return sessionView({ session: made, tenant });
    },
  );

  api.add({ method: 'post', path: '/dashboard/api/sign-out', summary: 'End the session', access: 'session', tag: 'dashboard' }, async ({ caller }, ctx) => {
    await sessions.destroy(caller.token);
    setSessionCookie(ctx, '', 0);
    return { signedOut: true };
  });

  api.add(
    { method: 'get', path: '/dashboard/api/session', summary: 'The signed-in tenant and the CSRF token', access: 'session', tag: 'dashboard' },
    ({ caller }) => sessionView(caller),
  );

  api.add(
    { method: 'get', path: '/dashboard/api/account', summary: 'Plan, limits and usage', access: 'session', tag: 'dashboard' },
    async ({ caller: { tenant, plan } }) => {
      const [keys, subscribed] = await Promise.all([accounts.listKeys(tenant.id), subscriptions.list(tenant.id)]);
      return {
        tenant: { id: tenant.id, name: tenant.name, plan: tenant.plan, email: tenant.email, createdAt: tenant.createdAt },
        plan: { name: plan.name, requestsPerMinute: plan.requestsPerMinute, maxKeys: plan.maxKeys, maxSubscriptions: plan.maxSubscriptions },
        usage: {
          activeKeys: keys.filter((k) => k.status === 'active').length,
          subscriptions: subscribed.length,
          // The tenant's API bucket, read without spending a request (the dashboard has its own IP bucket).
          rateLimit: toRateLimitState(await deps.limiter.tenant(tenant.id, tenantRate(plan), false)),
        },
      };
    },
  );

  api.add(
    { method: 'get', path: '/dashboard/api/keys', summary: "The tenant's keys (never their secrets)", access: 'session', tag: 'dashboard' },
    async ({ caller }) => ({
      keys: await accounts.listKeys(caller.tenant.id),
    }),
  );

  api.add(
    {
      method: 'post',
      path: '/dashboard/api/keys',
      summary: 'Create a key (scopes default ["read"]; read and manage may be granted); the secret is shown once',
      access: 'session',
      tag: 'dashboard',
      body: createKeyBody,
    },
    async ({ body, caller }, ctx) => {
      // The signed-in owner manages the whole tenant: it may grant read and manage, not ingest.
      const made = await accounts.issueKey(caller.tenant.id, { name: body.name, scopes: body.scopes, callerScopes: GRANTABLE_SCOPES });
      ctx.status = 201;
      return made;
    },
  );

  api.add(
    {
      method: 'post',
      path: '/dashboard/api/keys/:id/rotate',
      summary: 'Replace a key; the old one works for graceSeconds more',
      access: 'session',
      tag: 'dashboard',
      params: keyPath,
      body: rotateKeyBody,
    },
    async ({ params, body, caller }, ctx) => {
      // The owner's rights are the dashboard's grantable scopes: an ingest key is rotated by the CLI only (403).
      const made = await accounts.rotateKey(caller.tenant.id, params.id, body.graceSeconds, GRANTABLE_SCOPES);
      ctx.status = 201;
      return made;
    },
  );

  api.add(
    { method: 'delete', path: '/dashboard/api/keys/:id', summary: 'Revoke a key (again is fine)', access: 'session', tag: 'dashboard', params: keyPath },
    async ({ params, caller }) => ({ key: await accounts.revokeKey(params.id, caller.tenant.id) }),
  );

  api.add(
    { method: 'get', path: '/dashboard/api/subscriptions', summary: "The tenant's registered tokens", access: 'session', tag: 'dashboard' },
    async ({ caller }) => ({
      subscriptions: await subscriptions.list(caller.tenant.id),
    }),
  );

  api.add(
    {
      method: 'post',
      path: '/dashboard/api/subscriptions',
      summary: 'Register a token, optionally with a webhook URL',
      access: 'session',
      tag: 'dashboard',
      body: registerBody,
    },
    async ({ body, caller }, ctx) => {
      return registeredAnswer(await subscriptions.register(caller.tenant.id, registeredKey(body.address, chains), body.webhookUrl), ctx);
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/dashboard/api/subscriptions/:address',
      summary: 'Remove a registration',
      access: 'session',
      tag: 'dashboard',
      params: registeredPath(chains),
    },
    async ({ params, caller }) => ({ subscription: await subscriptions.remove(caller.tenant.id, params.address) }),
  );

  return api;
}
