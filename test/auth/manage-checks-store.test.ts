/**
 * Creating, rotating and revoking keys check the calling key in the store, never in the key
 * cache (docs/api.md, Authentication and keys): a key revoked where this process did not hear of
 * it (an operator's statement, or another process whose notice has not arrived) still answers
 * reads from the cache for a moment, but cannot mint, rotate or revoke a key.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('managing calls read the calling key from the store', () => {
  it('refuse with 401 a key revoked behind the cache, and change nothing', async () => {
    t = makeTestApp();
    const admin = t.makeKey({ plan: 'pro', scopes: ['read', 'manage'] });
    const other = await t.services.accounts.createKey(admin.tenantId, { name: 'other' });
    const key = { 'x-api-key': admin.secret };
    // The key is cached by its first request.
    expect((await t.http.get('/v1/me').set(key)).status).toBe(200);
    await t.sql('UPDATE api_keys SET revoked_at = ? WHERE id = ?', t.clock.seconds(), admin.keyId);
    // Reads may still be answered from the cache (no change was announced)...
    expect((await t.http.get('/v1/me').set(key)).status).toBe(200);
    // ...but no managing call is.
    const attempts = [
      await t.http.post('/v1/keys').set(key).send({ name: 'minted' }),
      await t.http.post(`/v1/keys/${other.key.id}/rotate`).set(key).send({}),
      await t.http.delete(`/v1/keys/${other.key.id}`).set(key),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
      expect(res.body.error).toMatchObject({ code: 'unauthorized', message: 'the API key was revoked' });
    }
    const keys = await t.services.accounts.listKeys(admin.tenantId);
    expect(keys.map((k) => [k.name, k.status]).sort()).toEqual([
      [null, 'revoked'],
      ['other', 'active'],
    ]);
  });

  it('refuse with 403 a key whose manage scope was taken away behind the cache', async () => {
    t = makeTestApp();
    const admin = t.makeKey({ plan: 'pro', scopes: ['read', 'manage'] });
    const key = { 'x-api-key': admin.secret };
    expect((await t.http.get('/v1/me').set(key)).status).toBe(200);
    await t.sql("UPDATE api_keys SET scopes = 'read' WHERE id = ?", admin.keyId);
    const res = await t.http.post('/v1/keys').set(key).send({});
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: 'this API key lacks the manage scope' });
    expect(await t.services.accounts.listKeys(admin.tenantId)).toHaveLength(1);
  });

  it('still work for a key that is valid in the store', async () => {
    t = makeTestApp();
    const admin = t.makeKey({ plan: 'pro', scopes: ['read', 'manage'] });
    const key = { 'x-api-key': admin.secret };
    const made = await t.http.post('/v1/keys').set(key).send({ name: 'minted' });
    expect(made.status).toBe(201);
    expect((await t.http.post(`/v1/keys/${made.body.key.id}/rotate`).set(key).send({})).status).toBe(201);
    expect((await t.http.delete(`/v1/keys/${made.body.key.id}`).set(key)).status).toBe(200);
  });
});
