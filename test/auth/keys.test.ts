/** /v1/keys: list, create (secret once, plan caps), revoke, tenant isolation, scopes. */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { expectUnauthorized } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

const K_FIELDS = ['createdAt', 'expiresAt', 'id', 'last4', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'scopes', 'status'];

const create = (secret: string, body?: unknown) => {
  const req = t.http.post('/v1/keys').set('x-api-key', secret);
  return body === undefined ? req : req.send(body as object);
};

describe('POST /v1/keys', () => {
  it('creates a read key and shows its secret once, with Cache-Control: no-store', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const res = await create(secret, { name: 'ci' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const { key, secret: made } = res.body;
    expect(made).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(Object.keys(key).sort()).toEqual(K_FIELDS);
    expect(key).toMatchObject({
      name: 'ci',
      scopes: ['read'],
      status: 'active',
      prefix: made.slice(0, 13),
      last4: made.slice(-4),
      createdAt: t.clock.seconds(),
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
    });
    expect(key.id).toMatch(/^key_[0-9A-Za-z]+$/);
    const me = await t.http.get('/v1/me').set('x-api-key', made);
    expect(me.status).toBe(200);
    expect(me.body.key.id).toBe(key.id);
  });

  it('never shows a secret again: not in GET /v1/keys, not stored (only its SHA-256)', async () => {
    t = makeTestApp();
    const first = t.makeKey();
    const made = (await create(first.secret, { name: 'x' })).body.secret as string;
    const list = await t.http.get('/v1/keys').set('x-api-key', first.secret);
    expect(list.status).toBe(200);
    const text = JSON.stringify(list.body);
    for (const s of [first.secret, made]) {
      expect(text).not.toContain(s);
      expect(text).not.toContain(s.slice(9, 30));
    }
    for (const k of list.body.keys) expect(Object.keys(k).sort()).toEqual(K_FIELDS);

    const rows = await t.sql('SELECT * FROM api_keys');
    expect(rows).toHaveLength(2);
    const stored = JSON.stringify(rows.map((r) => Object.values(r).map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : v))));
    for (const s of [first.secret, made]) expect(stored).not.toContain(s.slice(13, -4));
    const hashes = rows.map((r) => (r.hash as Buffer).toString('hex')).sort();
    expect(hashes).toEqual([first.secret, made].map((s) => createHash('sha256').update(s).digest('hex')).sort());
  });

  it('gives every key a different secret', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey({ plan: 'enterprise' });
    const secrets = new Set<string>();
    for (let i = 0; i < 20; i++) secrets.add((await create(secret, {})).body.secret);
    expect(secrets.size).toBe(20);
  });

  it('takes no body, an empty JSON object, or a null name as a key without a name', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey({ plan: 'pro' });
    for (const body of [undefined, {}, { name: null }]) {
      const res = await create(secret, body);
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(res.body.key.name).toBeNull();
    }
  });

  it('refuses a bad body with 400 invalid_body naming the field, and writes nothing', async () => {
    t = makeTestApp();
    const { secret, tenantId } = t.makeKey();
    const cases: Array<[unknown, string | undefined]> = [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: ['a'] }, 'name'],
      [{ name: 'tab\there' }, 'name'],
      [{ scopes: ['write'] }, 'scopes'],
      [{ scopes: [] }, 'scopes'],
      [{ scopes: 'read' }, 'scopes'],
      [{ name: 'ok', extra: 1 }, 'extra'],
      [[], undefined],
      ['"name"', undefined],
      [null, undefined],
    ];
    for (const [body, param] of cases) {
      const res = await t.http.post('/v1/keys').set('x-api-key', secret).set('Content-Type', 'application/json').send(JSON.stringify(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_body');
      expect(res.body.error.param).toBe(param);
      if (param) expect(res.body.error.message.startsWith(`${param} `) || res.body.error.message === `unknown field ${param}`).toBe(true);
    }
    expect(await t.services.accounts.listKeys(tenantId)).toHaveLength(1);
  });

  it('answers JSON that does not parse with 400 invalid_body', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    for (const text of ['{', '{"name":}', "{'name':'x'}", 'nul', '{"name":"x"} trailing']) {
      const res = await t.http.post('/v1/keys').set('x-api-key', secret).set('Content-Type', 'application/json').send(text);
      expect(res.status, text).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_body', message: 'the body is not valid JSON' });
    }
  });

  it('answers a body that is not JSON with 415 unsupported_media_type', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'Content-Type': 'text/plain' }, '{"name":"x"}'],
      [{ 'Content-Type': 'application/x-www-form-urlencoded' }, 'name=x'],
      [{ 'Content-Type': 'application/json; charset=latin1' }, '{"name":"x"}'],
      [{ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, '{"name":"x"}'],
    ];
    for (const [headers, body] of cases) {
      const res = await t.http.post('/v1/keys').set('x-api-key', secret).set(headers).send(body);
      expect(res.status, JSON.stringify(headers)).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
    }
    const vendor = await t.http.post('/v1/keys').set('x-api-key', secret).set('Content-Type', 'application/vnd.api+json; charset=utf-8').send('{"name":"v"}');
    expect(vendor.status).toBe(201);
  });

  it('answers a body over 64 KB with 413 payload_too_large (docs/api.md, Limits), and reads one of exactly 64 KB', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const padded = (bytes: number) => '{"name":"k"}' + ' '.repeat(bytes - 12);
    const over = await t.http
      .post('/v1/keys')
      .set('x-api-key', secret)
      .set('Content-Type', 'application/json')
      .send(padded(64 * 1024 + 1));
    expect(over.status).toBe(413);
    expect(over.body.error).toMatchObject({ code: 'payload_too_large', message: 'the request body is larger than 64 KB' });
    const huge = await t.http
      .post('/v1/keys')
      .set('x-api-key', secret)
      .set('Content-Type', 'application/json')
      .send(padded(10 * 1024 * 1024 + 1));
    expect(huge.status).toBe(413);
    const under = await t.http
      .post('/v1/keys')
      .set('x-api-key', secret)
      .set('Content-Type', 'application/json')
      .send(padded(64 * 1024));
    expect(under.status).toBe(201);
  });

  it('caps active keys by plan with 409 key_limit_reached; a revoked key frees a place', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey(); // free: 3 keys, this is the first
    expect((await create(secret)).status).toBe(201);
    const third = await create(secret);
    expect(third.status).toBe(201);
    const refused = await create(secret, { name: 'fourth' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('key_limit_reached');
    const del = await t.http.delete(`/v1/keys/${third.body.key.id}`).set('x-api-key', secret);
    expect(del.status).toBe(200);
    expect((await create(secret)).status).toBe(201);
    expect((await create(secret)).status).toBe(409);
  });

  it("reads the cap from the tenant's plan", async () => {
    t = makeTestApp();
    const { secret } = t.makeKey({ plan: 'pro' });
    for (let i = 2; i <= 20; i++) expect((await create(secret)).status, `key ${i}`).toBe(201);
    expect((await create(secret)).status).toBe(409);
  });

  it('does not count keys in a rotation grace period against the cap', async () => {
    t = makeTestApp();
    const a = t.makeKey();
    const b = (await create(a.secret)).body.key.id as string;
    const rot = await t.http.post(`/v1/keys/${b}/rotate`).set('x-api-key', a.secret).send({ graceSeconds: 3600 });
    expect(rot.status).toBe(201);
    // a and b's successor are active, b is expiring: a third active key fits the free plan's 3.
    expect((await create(a.secret)).status).toBe(201);
    expect((await create(a.secret)).status).toBe(409);
  });
});

describe('GET /v1/keys', () => {
  it("lists the tenant's own keys only, oldest first, with their status", async () => {
    t = makeTestApp();
    const a = t.makeKey();
    const other = t.makeKey();
    t.clock.advance(1000);
    const b = (await create(a.secret, { name: 'b' })).body.key.id as string;
    await t.http.delete(`/v1/keys/${b}`).set('x-api-key', a.secret);
    const res = await t.http.get('/v1/keys').set('x-api-key', a.secret);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.keys.map((k: { id: string }) => k.id)).toEqual([a.keyId, b]);
    expect(res.body.keys.map((k: { status: string }) => k.status)).toEqual(['active', 'revoked']);
    expect(JSON.stringify(res.body)).not.toContain(other.keyId);
  });
});

describe('DELETE /v1/keys/:id', () => {
  it('revokes a key (again is 200 with the same revokedAt) and the key stops at once', async () => {
    t = makeTestApp();
    const a = t.makeKey();
    const made = (await create(a.secret)).body;
    expect((await t.http.get('/v1/me').set('x-api-key', made.secret)).status).toBe(200);
    const del = await t.http.delete(`/v1/keys/${made.key.id}`).set('x-api-key', a.secret);
    expect(del.status).toBe(200);
    expect(del.body.key).toMatchObject({ id: made.key.id, status: 'revoked', revokedAt: t.clock.seconds() });
    expectUnauthorized(await t.http.get('/v1/me').set('x-api-key', made.secret), '/v1/me');
    t.clock.advance(5000);
    const again = await t.http.delete(`/v1/keys/${made.key.id}`).set('x-api-key', a.secret);
    expect(again.status).toBe(200);
    expect(again.body.key.revokedAt).toBe(del.body.key.revokedAt);
  });

  it('lets a key revoke itself', async () => {
    t = makeTestApp();
    const a = t.makeKey();
    expect((await t.http.delete(`/v1/keys/${a.keyId}`).set('x-api-key', a.secret)).status).toBe(200);
    expectUnauthorized(await t.http.get('/v1/keys').set('x-api-key', a.secret), '/v1/keys');
  });

  it("answers another tenant's key, or an unknown id, with 404 key_not_found and changes nothing", async () => {
    t = makeTestApp();
    const a = t.makeKey();
    const b = t.makeKey();
    for (const id of [b.keyId, 'key_nope', "key' OR '1'='1", 'x'.repeat(2000), '%00']) {
      const res = await t.http.delete(`/v1/keys/${encodeURIComponent(id)}`).set('x-api-key', a.secret);
      expect(res.status, id.slice(0, 20)).toBe(404);
      expect(res.body.error.code).toBe('key_not_found');
    }
    expect((await t.http.get('/v1/me').set('x-api-key', b.secret)).status).toBe(200);
  });
});

describe('scopes', () => {
  it('answers a key without the read scope with 403 on /v1/keys, while /v1/me still works', async () => {
    t = makeTestApp();
    const ingestOnly = t.makeKey({ scopes: ['ingest'] });
    for (const req of [
      t.http.get('/v1/keys'),
      t.http.post('/v1/keys').send({}),
      t.http.delete(`/v1/keys/${ingestOnly.keyId}`),
      t.http.post(`/v1/keys/${ingestOnly.keyId}/rotate`).send({}),
    ]) {
      const res = await req.set('x-api-key', ingestOnly.secret);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect((await t.http.get('/v1/me').set('x-api-key', ingestOnly.secret)).status).toBe(200);
    expect((await t.services.accounts.listKeys(ingestOnly.tenantId))[0]!.status).toBe('active');
  });

  it('checks the key before the body: no key and a bad body is 401, not 400', async () => {
    t = makeTestApp();
    const res = await t.http.post('/v1/keys').set('Content-Type', 'application/json').send('{');
    expectUnauthorized(res, '/v1/keys');
  });
});
