/**
 * The manage scope (docs/api.md, Authentication and keys): `read` reads, `manage` creates, rotates and revokes
 * keys and registers and removes subscriptions, `ingest` ingests. A key never grants more than
 * it holds, `ingest` never through the API, and keys made before the split keep what they could do.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/store/sqlite/db.js';
import { anAddress } from '../helpers/builders.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

let t: TestApp | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
});

const expectForbidden = (res: { status: number; body: { error: { code: string; param?: string } } }, param?: string) => {
  expect(res.status).toBe(403);
  expect(res.body.error.code).toBe('forbidden');
  expect(res.body.error.param).toBe(param);
};

describe('a read key', () => {
  it('cannot create, rotate or revoke keys, nor register or remove subscriptions (403), and changes nothing', async () => {
    t = makeTestApp();
    const reader = t.makeKey({ scopes: ['read'] });
    const other = await t.services.accounts.createKey(reader.tenantId, { scopes: ['read', 'ingest'] });
    const address = anAddress();
    await t.services.subscriptions.register(reader.tenantId, address, null);
    const key = { 'x-api-key': reader.secret };
    const attempts = [
      t.http.post('/v1/keys').set(key).send({}),
      t.http
        .post('/v1/keys')
        .set(key)
        .send({ scopes: ['read'] }),
      t.http.delete(`/v1/keys/${other.key.id}`).set(key),
      t.http.delete(`/v1/keys/${reader.keyId}`).set(key),
      t.http.post(`/v1/keys/${other.key.id}/rotate`).set(key).send({}),
      t.http.post('/v1/tokens/register').set(key).send({ address: anAddress() }),
      t.http.delete(`/v1/tokens/registered/${address}`).set(key),
    ];
    for (const res of await Promise.all(attempts)) {
      expectForbidden(res);
      expect(res.body.error.message).toBe('this API key lacks the manage scope');
    }
    expect((await t.services.accounts.listKeys(reader.tenantId)).map((k) => k.status)).toEqual(['active', 'active']);
    expect((await t.services.subscriptions.list(reader.tenantId)).map((s) => s.address)).toEqual([address]);
  });

  it('still reads: /v1/me, GET /v1/keys, GET /v1/tokens/registered and /v1/events', async () => {
    t = makeTestApp();
    const reader = t.makeKey({ scopes: ['read'] });
    const key = { 'x-api-key': reader.secret };
    const me = await t.http.get('/v1/me').set(key);
    expect(me.status).toBe(200);
    expect(me.body.key.scopes).toEqual(['read']);
    expect((await t.http.get('/v1/keys').set(key)).status).toBe(200);
    expect((await t.http.get('/v1/tokens/registered').set(key)).status).toBe(200);
    expect((await t.http.get('/v1/events').set(key)).status).toBe(200);
  });
});

describe('POST /v1/keys scopes', () => {
  it('gives a new key ["read"] by default, and what it asks for within the caller\'s scopes', async () => {
    t = makeTestApp({ env: {} });
    const admin = t.makeKey({ plan: 'pro', scopes: ['read', 'manage'] });
    const key = { 'x-api-key': admin.secret };
    const plain = await t.http.post('/v1/keys').set(key).send({});
    expect(plain.status).toBe(201);
    expect(plain.body.key.scopes).toEqual(['read']);
    const both = await t.http
      .post('/v1/keys')
      .set(key)
      .send({ scopes: ['manage', 'read', 'manage'] });
    expect(both.status).toBe(201);
    expect(both.body.key.scopes).toEqual(['read', 'manage']);
    const me = await t.http.get('/v1/me').set('x-api-key', both.body.secret);
    expect(me.body.key.scopes).toEqual(['read', 'manage']);
    // The new managing key can itself manage.
    expect(
      (
        await t.http
          .post('/v1/keys')
          .set('x-api-key', both.body.secret)
          .send({ scopes: ['manage'] })
      ).body.key.scopes,
    ).toEqual(['manage']);
  });

  it('refuses ingest, even to a caller holding it, and any scope the caller lacks: 403 on scopes, no key made', async () => {
    t = makeTestApp();
    const full = t.makeKey({ plan: 'pro', scopes: ['read', 'manage', 'ingest'] });
    expectForbidden(
      await t.http
        .post('/v1/keys')
        .set('x-api-key', full.secret)
        .send({ scopes: ['read', 'ingest'] }),
      'scopes',
    );
    const manager = await t.services.accounts.createKey(full.tenantId, { scopes: ['manage'] });
    const res = await t.http
      .post('/v1/keys')
      .set('x-api-key', manager.secret)
      .send({ scopes: ['read'] });
    expectForbidden(res, 'scopes');
    expect(res.body.error.message).toBe('this key cannot grant the read scope');
    expect(await t.services.accounts.listKeys(full.tenantId)).toHaveLength(2);
  });

  it('lets a manage key without read register a subscription, which a read key then lists', async () => {
    t = makeTestApp();
    const manager = t.makeKey({ scopes: ['manage'] });
    const reader = await t.services.accounts.createKey(manager.tenantId, { scopes: ['read'] });
    const address = anAddress();
    expect((await t.http.post('/v1/tokens/register').set('x-api-key', manager.secret).send({ address })).status).toBe(201);
    expectForbidden(await t.http.get('/v1/tokens/registered').set('x-api-key', manager.secret));
    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', reader.secret);
    expect(list.body.subscriptions.map((s: { address: string }) => s.address)).toEqual([address]);
  });
});

describe('migration 007', () => {
  it('gives manage to every key that held read, so existing keys keep what they could do', () => {
    const db = new Database(':memory:');
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 7),
    );
    db.prepare("INSERT INTO tenants (id, name, plan, created_at) VALUES ('ten_1', 'T', 'free', 0)").run();
    const insert = db.prepare(
      "INSERT INTO api_keys (id, tenant_id, hash, prefix, last4, scopes, created_at) VALUES (?, 'ten_1', ?, 'svc_live_x', 'abcd', ?, 0)",
    );
    const before = ['read', 'read,ingest', 'ingest', 'ingest,read', ''];
    before.forEach((scopes, i) => insert.run(`key_${i}`, Buffer.from([i]), scopes));
    migrate(db, all);
    expect(db.prepare('SELECT scopes FROM api_keys ORDER BY id').pluck().all()).toEqual([
      'read,manage',
      'read,manage,ingest',
      'ingest',
      'ingest,read,manage',
      '',
    ]);
    db.close();
  });
});
