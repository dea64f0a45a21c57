/** Dashboard keys: create (secret once), list, rotate with grace, revoke; tenant isolation. */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { signedInTenant, type Signed } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

const as = (s: Signed) => ({ Cookie: s.cookie, 'X-CSRF-Token': s.csrf });
const me = (secret: string) => t.http.get('/v1/me').set('x-api-key', secret);

describe('dashboard keys', () => {
  it('creates a read key whose secret is answered once, with no-store, and works on /v1/me', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const res = await t.http.post('/dashboard/api/keys').set(as(s)).send({ name: 'server' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.secret).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(res.body.key).toMatchObject({
      name: 'server',
      scopes: ['read'],
      status: 'active',
      prefix: res.body.secret.slice(0, 13),
      last4: res.body.secret.slice(-4),
    });

    const who = await me(res.body.secret);
    expect(who.status).toBe(200);
    expect(who.body.tenant.id).toBe(s.tenant.id);

    const list = await t.http.get('/dashboard/api/keys').set('Cookie', s.cookie);
    expect(list.status).toBe(200);
    expect(list.body.keys).toEqual([{ ...res.body.key, lastUsedAt: t.clock.seconds() }]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
  });

  it('creates an unnamed key from an empty body', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const res = await t.http.post('/dashboard/api/keys').set(as(s));
    expect(res.status).toBe(201);
    expect(res.body.key.name).toBeNull();
  });

  it.each([
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: 5 }, 'name'],
    [{ name: 'tab\there' }, 'name'],
    [{ scopes: ['admin'] }, 'scopes'],
    [{ scopes: [] }, 'scopes'],
  ])('refuses a bad create body %j with 400 invalid_body', async (body, param) => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const res = await t.http.post('/dashboard/api/keys').set(as(s)).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_body', param });
    expect(await t.services.accounts.listKeys(s.tenant.id)).toEqual([]);
  });

  it('stops at the plan cap with 409 key_limit_reached (free: 3 active keys)', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    for (let i = 0; i < 3; i++) expect((await t.http.post('/dashboard/api/keys').set(as(s)).send({})).status).toBe(201);
    const over = await t.http.post('/dashboard/api/keys').set(as(s)).send({});
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('key_limit_reached');
    expect(over.body.secret).toBeUndefined();
  });

  it('revokes a key so that it gets 401 on the very next request; revoking again is 200', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const made = (await t.http.post('/dashboard/api/keys').set(as(s)).send({})).body;
    expect((await me(made.secret)).status).toBe(200);
    const res = await t.http.delete(`/dashboard/api/keys/${made.key.id}`).set(as(s));
    expect(res.status).toBe(200);
    expect(res.body.key).toMatchObject({ id: made.key.id, status: 'revoked', revokedAt: t.clock.seconds() });
    expect((await me(made.secret)).status).toBe(401);
    expect((await t.http.delete(`/dashboard/api/keys/${made.key.id}`).set(as(s))).status).toBe(200);
  });

  it('rotates with a grace period: the new key works at once, the old one until the grace ends', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const old = (await t.http.post('/dashboard/api/keys').set(as(s)).send({ name: 'prod' })).body;
    const res = await t.http.post(`/dashboard/api/keys/${old.key.id}/rotate`).set(as(s)).send({ graceSeconds: 600 });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.previous).toMatchObject({ id: old.key.id, status: 'expiring', expiresAt: t.clock.seconds() + 600 });
    expect(res.body.key).toMatchObject({ name: 'prod', status: 'active' });
    expect(res.body.secret).not.toBe(old.secret);
    expect((await me(res.body.secret)).status).toBe(200);
    expect((await me(old.secret)).status).toBe(200);
    t.clock.advance(600_000);
    expect((await me(old.secret)).status).toBe(401);
    expect((await me(res.body.secret)).status).toBe(200);
  });

  it('rotates without a grace period by default: the old key stops at once', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const old = (await t.http.post('/dashboard/api/keys').set(as(s)).send({})).body;
    const res = await t.http.post(`/dashboard/api/keys/${old.key.id}/rotate`).set(as(s)).send({});
    expect(res.status).toBe(201);
    expect((await me(old.secret)).status).toBe(401);
  });

  it.each([-1, 1.5, '10', 86_401, null])('refuses graceSeconds %j with 400 and rotates nothing', async (graceSeconds) => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const old = (await t.http.post('/dashboard/api/keys').set(as(s)).send({})).body;
    const res = await t.http.post(`/dashboard/api/keys/${old.key.id}/rotate`).set(as(s)).send({ graceSeconds });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_body', param: 'graceSeconds' });
    expect(await t.services.accounts.listKeys(s.tenant.id)).toHaveLength(1);
  });

  it('refuses to rotate an ingest key (the CLI grants ingest) with 403, as the API does, and mints nothing', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const feeder = await t.services.accounts.createKey(s.tenant.id, { name: 'feeder', scopes: ['read', 'ingest'] });
    const res = await t.http.post(`/dashboard/api/keys/${feeder.key.id}/rotate`).set(as(s)).send({});
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: `rotating key ${feeder.key.id} needs the ingest scope` });
    expect(res.body.secret).toBeUndefined();
    expect((await t.services.accounts.listKeys(s.tenant.id)).map((k) => [k.name, k.status])).toEqual([['feeder', 'active']]);
  });

  it('refuses to rotate a revoked key', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const old = (await t.http.post('/dashboard/api/keys').set(as(s)).send({})).body;
    await t.http.delete(`/dashboard/api/keys/${old.key.id}`).set(as(s));
    const res = await t.http.post(`/dashboard/api/keys/${old.key.id}/rotate`).set(as(s)).send({});
    expect(res.status).toBe(400);
    // the same answer /v1/keys/:id/rotate gives: the key in the path is at fault
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'id' });
    expect(await t.services.accounts.listKeys(s.tenant.id)).toHaveLength(1);
  });

  it('answers an unknown key id with 404 key_not_found', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    for (const id of ['key_doesnotexist', "1' OR '1'='1", '%00']) {
      expect((await t.http.delete(`/dashboard/api/keys/${encodeURIComponent(id)}`).set(as(s))).status).toBe(404);
      const rot = await t.http
        .post(`/dashboard/api/keys/${encodeURIComponent(id)}/rotate`)
        .set(as(s))
        .send({});
      expect(rot.status).toBe(404);
      expect(rot.body.error.code).toBe('key_not_found');
    }
  });
});

describe('dashboard tenant isolation', () => {
  it("never shows, revokes or rotates another tenant's keys", async () => {
    t = makeTestApp();
    const a = await signedInTenant(t);
    const b = await signedInTenant(t);
    const aKey = (await t.http.post('/dashboard/api/keys').set(as(a)).send({ name: 'a' })).body;

    expect((await t.http.get('/dashboard/api/keys').set('Cookie', b.cookie)).body.keys).toEqual([]);
    const revoke = await t.http.delete(`/dashboard/api/keys/${aKey.key.id}`).set(as(b));
    expect(revoke.status).toBe(404);
    expect(revoke.body.error.code).toBe('key_not_found');
    const rotate = await t.http.post(`/dashboard/api/keys/${aKey.key.id}/rotate`).set(as(b)).send({ graceSeconds: 60 });
    expect(rotate.status).toBe(404);
    expect((await me(aKey.secret)).status).toBe(200);
    expect(await t.services.accounts.listKeys(a.tenant.id)).toHaveLength(1);
    expect(await t.services.accounts.listKeys(b.tenant.id)).toHaveLength(0);
  });

  it("does not let a tenant's cookie pass with another tenant's CSRF token", async () => {
    t = makeTestApp();
    const a = await signedInTenant(t);
    const b = await signedInTenant(t);
    const res = await t.http.post('/dashboard/api/keys').set({ Cookie: b.cookie, 'X-CSRF-Token': a.csrf }).send({});
    expect(res.status).toBe(403);
  });
});

describe('GET /dashboard/api/account', () => {
  it('shows the plan, its limits and the counts of active keys and subscriptions', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t, { plan: 'pro' });
    const live = (await t.http.post('/dashboard/api/keys').set(as(s)).send({})).body;
    const gone = (await t.http.post('/dashboard/api/keys').set(as(s)).send({})).body;
    // three API requests on the tenant's bucket (any of its keys)
    for (let i = 0; i < 3; i++) expect((await t.http.get('/v1/me').set('x-api-key', live.secret)).status).toBe(200);
    await t.http.delete(`/dashboard/api/keys/${gone.key.id}`).set(as(s));
    await t.http.post('/dashboard/api/subscriptions').set(as(s)).send({ address: 'So11111111111111111111111111111111111111112' });

    const res = await t.http.get('/dashboard/api/account').set('Cookie', s.cookie);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      tenant: { id: s.tenant.id, name: s.tenant.name, plan: 'pro', email: s.email, createdAt: s.tenant.createdAt },
      plan: { name: 'pro', requestsPerMinute: 3000, maxKeys: 20, maxSubscriptions: 500 },
      usage: { activeKeys: 1, subscriptions: 1, rateLimit: { limit: 3000, remaining: 2997, resetSeconds: 1, policy: '3000;w=60' } },
    });
    // reading the usage spends nothing from the tenant's bucket
    const again = await t.http.get('/dashboard/api/account').set('Cookie', s.cookie);
    expect(again.body.usage.rateLimit.remaining).toBe(2997);
  });

  it('answers 401 when not signed in', async () => {
    t = makeTestApp();
    expect((await t.http.get('/dashboard/api/account')).status).toBe(401);
  });
});
