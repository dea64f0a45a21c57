/** Dashboard sessions: who is signed in, expiry (idle and absolute), sign-out, CSRF. */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { sessionSetCookie, signedInTenant } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

const SESSION = '/dashboard/api/session';
const HOUR = 3600_000;

describe('GET /dashboard/api/session', () => {
  it('answers the signed-in tenant and the same CSRF token the sign-in gave', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const res = await t.http.get(SESSION).set('Cookie', s.cookie);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      tenant: { id: s.tenant.id, name: s.tenant.name, plan: 'free', email: s.email },
      csrfToken: s.csrf,
      expiresAt: expect.any(Number),
    });
  });

  it('answers 401 without a cookie, and 401 with a cleared cookie for an unknown one', async () => {
    t = makeTestApp();
    const none = await t.http.get(SESSION);
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ code: 'unauthorized', message: 'sign in first' });
    expect(none.headers['www-authenticate']).toBe('Bearer realm="api"');
    for (const value of ['A'.repeat(43), 'garbage', "' OR 1=1 --", 'x'.repeat(5000)]) {
      const res = await t.http.get(SESSION).set('Cookie', `svc_session=${encodeURIComponent(value)}`);
      expect(res.status).toBe(401);
      expect(sessionSetCookie(res)).toMatch(/^svc_session=; Path=\/dashboard; Max-Age=0; HttpOnly; SameSite=Strict$/);
    }
  });

  it('is not signed in by an API key: the dashboard needs its session', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const res = await t.http.get('/dashboard/api/keys').set('x-api-key', secret);
    expect(res.status).toBe(401);
  });

  it('ends a session after 2 idle hours', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    t.clock.advance(2 * HOUR - 1000);
    expect((await t.http.get(SESSION).set('Cookie', s.cookie)).status).toBe(200);
    t.clock.advance(2 * HOUR);
    const ended = await t.http.get(SESSION).set('Cookie', s.cookie);
    expect(ended.status).toBe(401);
    expect(ended.body.error.message).toBe('the session has ended; sign in again');
    // And it is gone from the store.
    expect(await t.sql('SELECT count(*) AS n FROM dashboard_sessions')).toEqual([{ n: 0 }]);
  });

  it('moves the idle limit forward on use, but never past 12 hours from sign-in', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const start = t.clock.seconds();
    for (let hour = 1; hour <= 11; hour++) {
      t.clock.advance(HOUR);
      const res = await t.http.get(SESSION).set('Cookie', s.cookie);
      expect(res.status).toBe(200);
      expect(res.body.expiresAt).toBe(Math.min(t.clock.seconds() + 7200, start + 12 * 3600));
    }
    t.clock.advance(HOUR);
    expect((await t.http.get(SESSION).set('Cookie', s.cookie)).status).toBe(401);
  });

  it('ends the sessions of a tenant that signs out, only that one', async () => {
    t = makeTestApp();
    const a = await signedInTenant(t);
    const b = await signedInTenant(t);
    const out = await t.http.post('/dashboard/api/sign-out').set('Cookie', a.cookie).set('X-CSRF-Token', a.csrf);
    expect(out.status).toBe(200);
    expect(sessionSetCookie(out)).toContain('Max-Age=0');
    expect((await t.http.get(SESSION).set('Cookie', a.cookie)).status).toBe(401);
    expect((await t.http.get(SESSION).set('Cookie', b.cookie)).status).toBe(200);
  });
});

describe('CSRF: every state-changing /dashboard/api/ call needs the X-CSRF-Token header', () => {
  const writes = [
    ['POST', '/dashboard/api/keys', {}],
    ['POST', '/dashboard/api/keys/key_x/rotate', {}],
    ['DELETE', '/dashboard/api/keys/key_x', undefined],
    ['POST', '/dashboard/api/subscriptions', { address: 'So11111111111111111111111111111111111111112' }],
    ['DELETE', '/dashboard/api/subscriptions/So11111111111111111111111111111111111111112', undefined],
    ['POST', '/dashboard/api/sign-out', undefined],
  ] as const;

  const send = (method: string, path: string, body: object | undefined, headers: Record<string, string>) => {
    const req = method === 'POST' ? t.http.post(path) : t.http.delete(path);
    req.set(headers);
    return body === undefined ? req : req.send(body);
  };

  it.each(writes)('%s %s without the header is 403 and changes nothing', async (method, path, body) => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const res = await send(method, path, body, { Cookie: s.cookie });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: 'the X-CSRF-Token header is missing or wrong' });
    expect(await t.services.accounts.listKeys(s.tenant.id)).toEqual([]);
    expect(await t.services.subscriptions.list(s.tenant.id)).toEqual([]);
    expect((await t.http.get(SESSION).set('Cookie', s.cookie)).status).toBe(200);
  });

  it('refuses a wrong token, another session’s token, and a token without its cookie', async () => {
    t = makeTestApp();
    const a = await signedInTenant(t);
    const b = await signedInTenant(t);
    const tries = [
      { Cookie: a.cookie, 'X-CSRF-Token': a.csrf.slice(0, -1) + (a.csrf.endsWith('A') ? 'B' : 'A') },
      { Cookie: a.cookie, 'X-CSRF-Token': b.csrf },
      { Cookie: a.cookie, 'X-CSRF-Token': a.cookie.split('=')[1]! },
      { Cookie: a.cookie, 'X-CSRF-Token': '' },
    ];
    for (const headers of tries) expect((await t.http.post('/dashboard/api/keys').set(headers).send({})).status).toBe(403);
    expect((await t.http.post('/dashboard/api/keys').set('X-CSRF-Token', a.csrf).send({})).status).toBe(401);
    expect(await t.services.accounts.listKeys(a.tenant.id)).toEqual([]);
  });

  it('refuses a call marked as coming from another origin even with the right token', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const res = await t.http.post('/dashboard/api/keys').set({ Cookie: s.cookie, 'X-CSRF-Token': s.csrf, Origin: 'https://evil.example' }).send({});
    expect(res.status).toBe(403);
    expect(await t.services.accounts.listKeys(s.tenant.id)).toEqual([]);
  });

  it('checks the session before the token: no cookie is 401', async () => {
    t = makeTestApp();
    const res = await t.http.delete('/dashboard/api/keys/key_x');
    expect(res.status).toBe(401);
  });

  it('gets no CORS headers on the dashboard routes (same origin only)', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const res = await t.http.get(SESSION).set({ Cookie: s.cookie, Origin: 'https://partner.example' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await t.http.options('/dashboard/api/keys').set({ Origin: 'https://partner.example', 'Access-Control-Request-Method': 'POST' });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });
});
