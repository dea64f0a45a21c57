/** POST /v1/keys/:id/rotate: a new key with the old scopes, the old one ending after a grace period. */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { expectUnauthorized } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

const rotate = (secret: string, id: string, body?: unknown) => {
  const req = t.http.post(`/v1/keys/${encodeURIComponent(id)}/rotate`).set('x-api-key', secret);
  return body === undefined ? req : req.set('Content-Type', 'application/json').send(JSON.stringify(body));
};

describe('POST /v1/keys/:id/rotate', () => {
  it('issues a new key with the old name and scopes, and ends the old one after the grace period', async () => {
    t = makeTestApp();
    const admin = t.makeKey({ scopes: ['read', 'manage', 'ingest'] });
    const old = await t.services.accounts.createKey(admin.tenantId, { name: 'pipeline', scopes: ['read', 'ingest'] });
    const res = await rotate(admin.secret, old.key.id, { graceSeconds: 600 });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const now = t.clock.seconds();
    expect(res.body.secret).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(res.body.secret).not.toBe(old.secret);
    expect(res.body.key).toMatchObject({ name: 'pipeline', scopes: ['read', 'ingest'], status: 'active', expiresAt: null });
    expect(res.body.key.id).not.toBe(old.key.id);
    expect(res.body.previous).toMatchObject({ id: old.key.id, status: 'expiring', expiresAt: now + 600, revokedAt: null });

    expect((await t.http.get('/v1/me').set('x-api-key', res.body.secret)).body.key.scopes).toEqual(['read', 'ingest']);
    const during = await t.http.get('/v1/me').set('x-api-key', old.secret);
    expect(during.status).toBe(200);
    expect(during.body.key.expiresAt).toBe(now + 600);

    t.clock.advance(600_000);
    expectUnauthorized(await t.http.get('/v1/me').set('x-api-key', old.secret), '/v1/me');
    expect((await t.http.get('/v1/me').set('x-api-key', res.body.secret)).status).toBe(200);
    const list = await t.http.get('/v1/keys').set('x-api-key', admin.secret);
    expect(list.body.keys.find((k: { id: string }) => k.id === old.key.id).status).toBe('expired');
  });

  it('ends the old key at once with grace 0, the default', async () => {
    t = makeTestApp();
    for (const body of [undefined, {}, { graceSeconds: 0 }]) {
      const k = t.makeKey();
      const res = await rotate(k.secret, k.keyId, body);
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(res.body.previous).toMatchObject({ status: 'expired', expiresAt: t.clock.seconds() });
      expectUnauthorized(await t.http.get('/v1/me').set('x-api-key', k.secret), '/v1/me');
      expect((await t.http.get('/v1/me').set('x-api-key', res.body.secret)).status).toBe(200);
    }
  });

  it('accepts the largest grace period, a day', async () => {
    t = makeTestApp();
    const k = t.makeKey();
    const res = await rotate(k.secret, k.keyId, { graceSeconds: 86_400 });
    expect(res.status).toBe(201);
    expect(res.body.previous.expiresAt).toBe(t.clock.seconds() + 86_400);
  });

  it('refuses a bad graceSeconds with 400 invalid_body and rotates nothing', async () => {
    t = makeTestApp();
    const k = t.makeKey();
    for (const grace of [-1, 86_401, 1.5, '10', null, true, 1e21, [], {}]) {
      const res = await rotate(k.secret, k.keyId, { graceSeconds: grace });
      expect(res.status, JSON.stringify(grace)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_body', param: 'graceSeconds', message: 'graceSeconds must be an integer from 0 to 86400' });
    }
    const typo = await rotate(k.secret, k.keyId, { grace_seconds: 60 });
    expect(typo.status).toBe(400);
    expect(typo.body.error).toMatchObject({ code: 'invalid_body', param: 'grace_seconds' });
    expect(await t.services.accounts.listKeys(k.tenantId)).toHaveLength(1);
    expect((await t.http.get('/v1/me').set('x-api-key', k.secret)).status).toBe(200);
  });

  it('refuses to rotate a revoked or expired key with 400 invalid_parameter on id', async () => {
    t = makeTestApp();
    const admin = t.makeKey();
    const revoked = await t.services.accounts.createKey(admin.tenantId);
    await t.services.accounts.revokeKey(revoked.key.id);
    const expiring = await t.services.accounts.createKey(admin.tenantId);
    expect((await rotate(admin.secret, expiring.key.id, { graceSeconds: 10 })).status).toBe(201);
    t.clock.advance(10_000);
    for (const [id, status] of [
      [revoked.key.id, 'revoked'],
      [expiring.key.id, 'expired'],
    ] as const) {
      const res = await rotate(admin.secret, id, {});
      expect(res.status, status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'id' });
      expect(res.body.error.message).toContain(status);
    }
    expect(await t.services.accounts.listKeys(admin.tenantId)).toHaveLength(4);
  });

  it('lets a key in its grace period be rotated again, without extending its expiry, within the cap', async () => {
    t = makeTestApp();
    const admin = t.makeKey();
    const k = await t.services.accounts.createKey(admin.tenantId);
    const first = await rotate(admin.secret, k.key.id, { graceSeconds: 600 });
    expect(first.body.previous.expiresAt).toBe(t.clock.seconds() + 600);
    const second = await rotate(admin.secret, k.key.id, { graceSeconds: 3600 });
    expect(second.status).toBe(201);
    expect(second.body.previous.expiresAt).toBe(t.clock.seconds() + 600);
    // admin + two successors = 3 active keys, the free plan's cap: a third rotation of k is refused.
    const third = await rotate(admin.secret, k.key.id, { graceSeconds: 60 });
    expect(third.status).toBe(409);
    expect(third.body.error.code).toBe('key_limit_reached');
  });

  it('rotates an active key even when the tenant is at its cap (the swap keeps the count)', async () => {
    t = makeTestApp();
    const admin = t.makeKey();
    await t.services.accounts.createKey(admin.tenantId);
    const k = await t.services.accounts.createKey(admin.tenantId);
    expect((await t.http.post('/v1/keys').set('x-api-key', admin.secret)).status).toBe(409);
    expect((await rotate(admin.secret, k.key.id, { graceSeconds: 60 })).status).toBe(201);
  });

  it("answers another tenant's key or an unknown id with 404 key_not_found", async () => {
    t = makeTestApp();
    const a = t.makeKey();
    const b = t.makeKey();
    for (const id of [b.keyId, 'key_missing', '../../v1/me']) {
      const res = await rotate(a.secret, id, {});
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe('key_not_found');
    }
    expect((await t.http.get('/v1/me').set('x-api-key', b.secret)).status).toBe(200);
    expect(await t.services.accounts.listKeys(b.tenantId)).toHaveLength(1);
  });

  it('refuses to let a managing key mint a key with a scope it lacks (403), and rotates nothing', async () => {
    t = makeTestApp();
    const reader = t.makeKey({ scopes: ['read', 'manage'] });
    const ingest = await t.services.accounts.createKey(reader.tenantId, { scopes: ['read', 'ingest'] });
    const res = await rotate(reader.secret, ingest.key.id, { graceSeconds: 60 });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await t.services.accounts.listKeys(reader.tenantId)).map((k) => k.status)).toEqual(['active', 'active']);
  });
});

describe('the accounts service (used by the dashboard)', () => {
  it('issueKey enforces the plan cap and rotateKey validates its grace period', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey();
    const acc = t.services.accounts;
    const a = await acc.issueKey(tenantId, { name: 'a' });
    await acc.issueKey(tenantId, {});
    await expect(acc.issueKey(tenantId, {})).rejects.toThrow(expect.objectContaining({ kind: 'limit' }));
    await expect(acc.rotateKey(tenantId, a.key.id, -1)).rejects.toThrow(expect.objectContaining({ kind: 'invalid' }));
    await expect(acc.rotateKey(tenantId, a.key.id, 0.5)).rejects.toThrow(expect.objectContaining({ kind: 'invalid' }));
    await expect(acc.rotateKey('ten_other', a.key.id, 0)).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
    await expect(acc.issueKey(tenantId, { name: '' })).rejects.toThrow(expect.objectContaining({ kind: 'invalid' }));
    const r = await acc.rotateKey(tenantId, a.key.id, 30);
    expect(r.key.name).toBe('a');
    expect(r.previous.expiresAt).toBe(t.clock.seconds() + 30);
    expect(r.secret).toMatch(/^svc_live_/);
  });
});
