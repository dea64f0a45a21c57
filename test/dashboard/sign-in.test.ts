/** Dashboard sign-in: password check, the session cookie, throttling, cross-site refusal. */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aTenantWithPassword, PASSWORD, sessionSetCookie, signIn } from './support.js';
import { createSignInThrottle } from '../../src/services/sessions.js';

let t: TestApp;
afterEach(() => t?.close());

const SIGN_IN = '/dashboard/api/sign-in';

describe('POST /dashboard/api/sign-in', () => {
  it('signs in with the right email and password and sets an httpOnly, SameSite=Strict session cookie', async () => {
    t = makeTestApp();
    const { tenant, email } = await aTenantWithPassword(t);
    const res = await t.http.post(SIGN_IN).send({ email, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      tenant: { id: tenant.id, name: tenant.name, plan: 'free', email },
      csrfToken: expect.stringMatching(/^[\w-]{43}$/),
      expiresAt: t.clock.seconds() + 2 * 3600,
    });
    const line = sessionSetCookie(res)!;
    const attrs = line.split(';').map((s) => s.trim());
    expect(attrs[0]).toMatch(/^svc_session=[\w-]{43}$/);
    expect(attrs).toContain('HttpOnly');
    expect(attrs).toContain('SameSite=Strict');
    expect(attrs).toContain('Path=/dashboard');
    expect(attrs).toContain('Max-Age=43200');
    // Plain HTTP here: a Secure cookie would never come back.
    expect(attrs).not.toContain('Secure');
    // The CSRF token is not the session id.
    expect(attrs[0]!.slice('svc_session='.length)).not.toBe(res.body.csrfToken);
  });

  it('marks the cookie Secure when the request came over HTTPS through a trusted proxy', async () => {
    t = makeTestApp({ env: { TRUST_PROXY: '1' } });
    const { email } = await aTenantWithPassword(t);
    const s = await signIn(t, email, PASSWORD, { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '198.51.100.4' });
    expect(
      sessionSetCookie(s.res)!
        .split(';')
        .map((x) => x.trim()),
    ).toContain('Secure');
  });

  it('keeps only a hash of the session id in the store', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    const s = await signIn(t, email);
    const token = s.cookie.split('=')[1]!;
    const rows = await t.sql('SELECT * FROM dashboard_sessions');
    expect(rows).toHaveLength(1);
    const dump = JSON.stringify(rows.map((r) => Object.values(r).map((v) => (Buffer.isBuffer(v) ? v.toString('base64url') + v.toString('hex') : v))));
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(Buffer.from(token, 'base64url').toString('hex'));
  });

  it('accepts the email in any letter case', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    const res = await t.http.post(SIGN_IN).send({ email: email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
  });

  it('answers a wrong password and an unknown email with the same 401, without a session, with the contract challenge', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    const wrong = await t.http.post(SIGN_IN).send({ email, password: 'not the password' });
    const unknown = await t.http.post(SIGN_IN).send({ email: 'nobody@example.com', password: PASSWORD });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'unauthorized', message: 'wrong email or password' });
      expect(sessionSetCookie(res)).toBeUndefined();
      expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
    }
    expect(await t.sql('SELECT count(*) AS n FROM dashboard_sessions')).toEqual([{ n: 0 }]);
  });

  it('refuses a tenant that has no password set', async () => {
    t = makeTestApp();
    await t.services.accounts.createTenant({ name: 'No password', plan: 'free', email: 'nopass@example.com' });
    const res = await t.http.post(SIGN_IN).send({ email: 'nopass@example.com', password: PASSWORD });
    expect(res.status).toBe(401);
  });

  it.each([
    ['a missing password', { email: 'a@example.com' }, 'password', 'password is required'],
    ['a missing email', { password: 'x' }, 'email', 'email is required'],
    ['a non-string email', { email: 42, password: 'x' }, 'email', 'email must be a string of 3 to 254 characters without control characters'],
    // PostgreSQL refuses a NUL in any text: it was a 500 there, never a lookup.
    [
      'an email with a NUL',
      { email: 'a\u0000@example.com', password: 'x' },
      'email',
      'email must be a string of 3 to 254 characters without control characters',
    ],
    ['an empty password', { email: 'a@example.com', password: '' }, 'password', 'password must be a string of 1 to 1024 characters'],
    ['an unknown field', { email: 'a@example.com', password: 'x', remember: true }, 'remember', 'unknown field remember'],
  ])('answers %s with 400 invalid_body naming the field', async (_name, body, param, message) => {
    t = makeTestApp();
    const res = await t.http.post(SIGN_IN).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_body', param, message });
  });

  it('answers a body that is not JSON with 415 and broken JSON with 400', async () => {
    t = makeTestApp();
    const form = await t.http.post(SIGN_IN).type('form').send('email=a%40example.com&password=x');
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('unsupported_media_type');
    const broken = await t.http.post(SIGN_IN).set('Content-Type', 'application/json').send('{"email":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_body');
  });

  it('refuses a sign-in posted from another site (Origin or Sec-Fetch-Site)', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    const fromOrigin = await t.http.post(SIGN_IN).set('Origin', 'https://evil.example').send({ email, password: PASSWORD });
    expect(fromOrigin.status).toBe(403);
    expect(fromOrigin.body.error.code).toBe('forbidden');
    const fromSite = await t.http.post(SIGN_IN).set('Sec-Fetch-Site', 'cross-site').send({ email, password: PASSWORD });
    expect(fromSite.status).toBe(403);
    expect(sessionSetCookie(fromOrigin)).toBeUndefined();
    // The page's own origin is fine.
    const own = await t.http
      .post(SIGN_IN)
      .set('Origin', 'http://dash.test')
      .set('Host', 'dash.test')
      .set('Sec-Fetch-Site', 'same-origin')
      .send({ email, password: PASSWORD });
    expect(own.status).toBe(200);
  });

  it('replaces the session a browser already had with a new one', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    const first = await signIn(t, email);
    const second = await signIn(t, email, PASSWORD, { Cookie: first.cookie });
    expect(second.cookie).not.toBe(first.cookie);
    expect((await t.http.get('/dashboard/api/session').set('Cookie', first.cookie)).status).toBe(401);
    expect((await t.http.get('/dashboard/api/session').set('Cookie', second.cookie)).status).toBe(200);
  });
});

describe('sign-in throttling: 30 attempts per IP, 10 failures per IP and account, a delay (never a lockout) per account', () => {
  const from = (ip: string) => ({ 'X-Forwarded-For': ip });
  const count = async (bucket: string) => (await t.sql<{ n: number }>('SELECT count(*) AS n FROM sign_in_failures WHERE bucket LIKE ?', bucket))[0]!.n;

  it('counts sign-ins sent at the same time: of 30 concurrent wrong guesses only 10 reach the password check', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => t.http.post(SIGN_IN).send({ email, password: `guess ${i}` })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect(await count(`pair:%|${email}`)).toBe(10);
    expect(await count(`account:${email}`)).toBe(10);
  });

  it('takes back the attempt of a successful sign-in and forgets the failures before it; the IP keeps its attempts', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    for (let i = 0; i < 3; i++) expect((await t.http.post(SIGN_IN).send({ email, password: `wrong ${i}` })).status).toBe(401);
    expect((await t.http.post(SIGN_IN).send({ email, password: PASSWORD })).status).toBe(200);
    expect(await count(`account:${email}`)).toBe(0);
    expect(await count('pair:%')).toBe(0);
    expect(await count('attempt:%')).toBe(4);
  });

  it('answers 429 with Retry-After after 10 failures from one IP on one account, even for the right password, until the window has passed', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    for (let i = 0; i < 10; i++) {
      const res = await t.http.post(SIGN_IN).send({ email, password: `wrong ${i}` });
      expect(res.status).toBe(401);
    }
    const refused = await t.http.post(SIGN_IN).send({ email, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.headers['retry-after']).toBe('900');
    expect(sessionSetCookie(refused)).toBeUndefined();

    t.clock.advance(899_000);
    expect((await t.http.post(SIGN_IN).send({ email, password: PASSWORD })).status).toBe(429);
    t.clock.advance(1_000);
    expect((await t.http.post(SIGN_IN).send({ email, password: PASSWORD })).status).toBe(200);
  });

  it('counts a sliding window: Retry-After is until the oldest counted failure leaves it', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    for (let i = 0; i < 10; i++) {
      await t.http.post(SIGN_IN).send({ email, password: 'wrong' });
      t.clock.advance(60_000);
    }
    // Failures at 0, 60, ..., 540 s; now 600 s: the oldest leaves at 900 s.
    const refused = await t.http.post(SIGN_IN).send({ email, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('300');
    t.clock.advance(300_000);
    expect((await t.http.post(SIGN_IN).send({ email, password: 'wrong again' })).status).toBe(401);
    // That failure filled the window again.
    expect((await t.http.post(SIGN_IN).send({ email, password: PASSWORD })).status).toBe(429);
  });

  it('never locks the owner out: after failures from many IPs, the owner signs in from a new address', async () => {
    t = makeTestApp({ env: { TRUST_PROXY: '1' } });
    const victim = await aTenantWithPassword(t);
    const other = await aTenantWithPassword(t);
    for (let i = 0; i < 11; i++) {
      expect(
        (
          await t.http
            .post(SIGN_IN)
            .set(from(`203.0.113.${i + 1}`))
            .send({ email: victim.email, password: 'guess' })
        ).status,
      ).toBe(401);
    }
    // The account is slowed (see the throttle's delays below), not locked; any letter case.
    expect((await t.http.post(SIGN_IN).set(from('198.51.100.200')).send({ email: victim.email.toUpperCase(), password: PASSWORD })).status).toBe(200);
    expect((await t.http.post(SIGN_IN).set(from('203.0.113.202')).send({ email: other.email, password: PASSWORD })).status).toBe(200);
  });

  it('stops a guesser at its own (IP, account) pair while the owner elsewhere is unaffected', async () => {
    t = makeTestApp({ env: { TRUST_PROXY: '1' } });
    const { email } = await aTenantWithPassword(t);
    for (let i = 0; i < 10; i++) expect((await t.http.post(SIGN_IN).set(from('203.0.113.9')).send({ email, password: 'guess' })).status).toBe(401);
    expect((await t.http.post(SIGN_IN).set(from('203.0.113.9')).send({ email, password: 'guess' })).status).toBe(429);
    expect((await t.http.post(SIGN_IN).set(from('192.0.2.50')).send({ email, password: PASSWORD })).status).toBe(200);
  });

  it('counts every attempt from an IP, malformed ones included: the 31st in 15 min is 429, other IPs are not affected', async () => {
    t = makeTestApp({ env: { TRUST_PROXY: '1' } });
    const real = await aTenantWithPassword(t);
    for (let i = 0; i < 20; i++) {
      expect(
        (
          await t.http
            .post(SIGN_IN)
            .set(from('198.51.100.7'))
            .send({ email: `probe${i}@example.com`, password: 'guess' })
        ).status,
      ).toBe(401);
    }
    for (let i = 0; i < 10; i++)
      expect((await t.http.post(SIGN_IN).set(from('198.51.100.7')).set('Content-Type', 'application/json').send('{')).status).toBe(400);
    const refused = await t.http.post(SIGN_IN).set(from('198.51.100.7')).send({ email: real.email, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('900');
    expect(refused.headers.connection).toBe('close');
    expect((await t.http.post(SIGN_IN).set(from('198.51.100.8')).send({ email: real.email, password: PASSWORD })).status).toBe(200);
    t.clock.advance(900_000);
    expect((await t.http.post(SIGN_IN).set(from('198.51.100.7')).send({ email: real.email, password: PASSWORD })).status).toBe(200);
  });

  it('counts IPv6 clients by their /56, so hopping addresses inside it does not help', async () => {
    t = makeTestApp({ env: { TRUST_PROXY: '1' } });
    const real = await aTenantWithPassword(t);
    for (let i = 0; i < 30; i++) {
      await t.http
        .post(SIGN_IN)
        .set(from(`2001:db8:0:12${(i % 16).toString(16)}0::${i + 1}`))
        .send({ email: `probe${i}@example.com`, password: 'guess' });
    }
    expect((await t.http.post(SIGN_IN).set(from('2001:db8:0:12ff::1')).send({ email: real.email, password: PASSWORD })).status).toBe(429);
    expect((await t.http.post(SIGN_IN).set(from('2001:db8:0:1300::1')).send({ email: real.email, password: PASSWORD })).status).toBe(200);
  });

  it("clears an account's failures once its owner signs in", async () => {
    t = makeTestApp({ env: { TRUST_PROXY: '1' } });
    const { email } = await aTenantWithPassword(t);
    for (let i = 0; i < 9; i++)
      await t.http
        .post(SIGN_IN)
        .set(from(`192.0.2.${i + 1}`))
        .send({ email, password: 'typo' });
    expect(await count(`account:${email}`)).toBe(9);
    expect((await t.http.post(SIGN_IN).set(from('192.0.2.100')).send({ email, password: PASSWORD })).status).toBe(200);
    expect(await count(`account:${email}`)).toBe(0);
  });

  it('does not count malformed requests as failed sign-ins', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    for (let i = 0; i < 12; i++) expect((await t.http.post(SIGN_IN).send({ email })).status).toBe(400);
    expect(await count(`account:${email}`)).toBe(0);
    expect((await t.http.post(SIGN_IN).send({ email, password: PASSWORD })).status).toBe(200);
  });

  it('refuses a body over 4 KB with 413 and closes the connection', async () => {
    t = makeTestApp();
    const { email } = await aTenantWithPassword(t);
    const res = await t.http.post(SIGN_IN).send({ email, password: 'p'.repeat(4100) });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'payload_too_large', message: 'the request body is larger than 4 KB' });
    expect(res.headers.connection).toBe('close');
    expect(await count(`account:${email}`)).toBe(0);
  });
});

describe('the sign-in throttle', () => {
  it('delays an account attacked from many addresses more with every failure past 10, up to 4 s, and never refuses it', async () => {
    t = makeTestApp();
    const throttle = createSignInThrottle({ clock: t.clock, repos: t.services.repos });
    const delays: number[] = [];
    for (let i = 0; i < 16; i++) {
      const a = await throttle.begin(`203.0.113.${i}`, 'owner@example.com');
      expect(a.wait).toBe(0);
      delays.push(a.delayMs);
    }
    expect(delays).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 250, 500, 1000, 2000, 4000, 4000]);
    // The window passes: no delay any more.
    t.clock.advance(900_000);
    expect((await throttle.begin('203.0.113.99', 'owner@example.com')).delayMs).toBe(0);
  });
});
