import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, anAddress } from '../helpers/builders.js';
import { setPlanCap } from './store-rows.js';

let t: TestApp;
afterEach(() => t?.close());

const register = (secret: string, body: unknown) =>
  t.http.post('/v1/tokens/register').set('x-api-key', secret).set('Content-Type', 'application/json').send(JSON.stringify(body));

describe('POST /v1/tokens/register', () => {
  it('creates a subscription with 201, then answers 200 with the same one', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const address = anAddress('reg');
    const first = await register(secret, { address });
    expect(first.status).toBe(201);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body).toEqual({
      subscription: { id: expect.stringMatching(/^sub_/), address, webhookUrl: null, createdAt: t.clock.seconds() },
    });
    t.clock.advance(5000);
    const again = await register(secret, { address });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ subscription: first.body.subscription });
    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', secret);
    expect(list.body.subscriptions).toHaveLength(1);
  });

  it('accepts a token that is not in the store yet, and lower-cases EVM addresses', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const res = await register(secret, { address: '0xABCDEF0123456789ABCDEF0123456789ABCDEF01' });
    expect(res.status).toBe(201);
    expect(res.body.subscription.address).toBe('0xabcdef0123456789abcdef0123456789abcdef01');
    const same = await register(secret, { address: '0xabcdef0123456789abcdef0123456789abcdef01' });
    expect(same.status).toBe(200);
  });

  it('shows the webhook secret once: the first time the tenant sets a webhook, on any token', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const a = anAddress('a');
    const b = anAddress('b');
    const plain = await register(secret, { address: a });
    expect(plain.body.webhookSecret).toBeUndefined();
    const hooked = await register(secret, { address: a, webhookUrl: 'http://127.0.0.1:9/hook' });
    expect(hooked.status).toBe(200);
    expect(hooked.body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    expect(hooked.body.subscription.webhookUrl).toBe('http://127.0.0.1:9/hook');
    const other = await register(secret, { address: b, webhookUrl: 'http://127.0.0.1:9/other' });
    expect(other.status).toBe(201);
    expect(other.body.webhookSecret).toBeUndefined();
    const again = await register(secret, { address: a, webhookUrl: 'http://127.0.0.1:9/hook' });
    expect(again.body.webhookSecret).toBeUndefined();
  });

  it('gives each tenant its own secret', async () => {
    t = makeTestApp();
    const k1 = t.makeKey();
    const k2 = t.makeKey();
    const address = anAddress();
    const r1 = await register(k1.secret, { address, webhookUrl: 'http://127.0.0.1:9/a' });
    const r2 = await register(k2.secret, { address, webhookUrl: 'http://127.0.0.1:9/b' });
    expect(r1.status).toBe(201);
    expect(r2.status).toBe(201);
    expect(r1.body.webhookSecret).toBeTruthy();
    expect(r2.body.webhookSecret).toBeTruthy();
    expect(r1.body.webhookSecret).not.toBe(r2.body.webhookSecret);
    expect(r1.body.subscription.id).not.toBe(r2.body.subscription.id);
  });

  it('replaces the webhook URL with a new one, keeps it when absent, and removes it with null', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const address = anAddress();
    await register(secret, { address, webhookUrl: 'http://127.0.0.1:9/old' });
    const replaced = await register(secret, { address, webhookUrl: 'https://127.0.0.1:9/new?x=1' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.subscription.webhookUrl).toBe('https://127.0.0.1:9/new?x=1');
    const kept = await register(secret, { address });
    expect(kept.body.subscription.webhookUrl).toBe('https://127.0.0.1:9/new?x=1');
    const removed = await register(secret, { address, webhookUrl: null });
    expect(removed.body.subscription.webhookUrl).toBeNull();
  });

  it('refuses a new subscription beyond the plan cap with 409, but still re-registers existing ones', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey({ plan: 'free' });
    const addresses = Array.from({ length: 10 }, () => anAddress());
    for (const address of addresses) expect((await register(secret, { address })).status).toBe(201);
    const over = await register(secret, { address: anAddress() });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('subscription_limit_reached');
    expect(over.body.error.message).toContain('10');
    expect((await register(secret, { address: addresses[3] })).status).toBe(200);
    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', secret);
    expect(list.body.subscriptions).toHaveLength(10);
    // Removing one frees a place.
    await t.http.delete(`/v1/tokens/registered/${addresses[0]}`).set('x-api-key', secret);
    expect((await register(secret, { address: anAddress() })).status).toBe(201);
  });

  it('reads the cap from the plan table', async () => {
    t = makeTestApp();
    expect((await t.services.repos.accounts.plan('pro'))?.maxSubscriptions).toBeGreaterThan(1);
    await setPlanCap(t, 'pro', 1);
    const { secret } = t.makeKey({ plan: 'pro' });
    expect((await register(secret, { address: anAddress() })).status).toBe(201);
    expect((await register(secret, { address: anAddress() })).status).toBe(409);
  });

  it.each([
    [{}, 'address', 'address is required'],
    [{ address: 'not-an-address' }, 'address', 'address must be a well-formed address'],
    [{ address: 12345 }, 'address', 'address must be a well-formed address'],
    [{ address: "' OR 1=1 --" }, 'address', 'address must be a well-formed address'],
    [{ address: 'So11111111111111111111111111111111111111112', webhookUrl: 42 }, 'webhookUrl', 'webhookUrl must be a string'],
    [{ address: 'So11111111111111111111111111111111111111112', webhookUrl: 'ftp://example.com/x' }, 'webhookUrl', 'webhookUrl must use http or https'],
    [{ address: 'So11111111111111111111111111111111111111112', webhookUrl: 'not a url' }, 'webhookUrl', 'webhookUrl must be an absolute'],
    [{ address: 'So11111111111111111111111111111111111111112', webhookUrl: '/relative' }, 'webhookUrl', 'webhookUrl must be an absolute'],
    [{ address: 'So11111111111111111111111111111111111111112', webhookUrl: 'http://user:pw@example.com/' }, 'webhookUrl', 'user name or password'],
    [{ address: 'So11111111111111111111111111111111111111112', webhookUrl: `https://example.com/${'a'.repeat(2100)}` }, 'webhookUrl', 'at most 2048'],
    [{ address: 'So11111111111111111111111111111111111111112', extra: 1 }, 'extra', 'unknown field extra'],
  ])('refuses the body %j with 400 invalid_body naming %s', async (body, param, message) => {
    t = makeTestApp();
    const { secret, tenantId } = t.makeKey();
    const res = await register(secret, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_body');
    expect(res.body.error.param).toBe(param);
    expect(res.body.error.message).toContain(message);
    expect(await t.services.repos.subscriptions.count(tenantId)).toBe(0);
  });

  it('refuses a body that is not JSON, or not an object', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const broken = await t.http.post('/v1/tokens/register').set('x-api-key', secret).set('Content-Type', 'application/json').send('{"address":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_body');
    const array = await register(secret, [{ address: anAddress() }]);
    expect(array.status).toBe(400);
    const text = await t.http.post('/v1/tokens/register').set('x-api-key', secret).set('Content-Type', 'text/plain').send('x');
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
  });

  it('needs a key (401) with the read scope (403)', async () => {
    t = makeTestApp();
    const anon = await t.http.post('/v1/tokens/register').send({ address: anAddress() });
    expect(anon.status).toBe(401);
    expect(anon.body.error.code).toBe('unauthorized');
    const { secret } = t.makeKey({ scopes: ['ingest'] });
    const ingestOnly = await register(secret, { address: anAddress() });
    expect(ingestOnly.status).toBe(403);
    expect(ingestOnly.body.error.code).toBe('forbidden');
  });
});

describe('webhook URLs that point inside the network', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://localhost:8080/hook',
    'http://10.0.0.5/hook',
    'http://192.168.1.1/hook',
    'http://172.16.0.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0/',
    'http://[::1]/hook',
    'http://[fe80::1]/hook',
    'http://[fd00::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    // IPv6 forms that embed a private IPv4: judged by the IPv4 inside.
    'http://[::127.0.0.1]/hook',
    'http://[::ffff:7f00:1]/hook',
    'http://[::a00:5]/hook',
    'http://[64:ff9b::7f00:1]/hook',
    'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
    'http://[2002:7f00:1::1]/hook',
    'http://[2002:c0a8:101::]/hook',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', // Teredo
    'http://2130706433/hook', // 127.0.0.1 written as one number
    'http://0x7f.1/hook',
    'http://100.64.0.1/hook',
  ])('refuses %s when private targets are not allowed', async (webhookUrl) => {
    t = makeTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    const { secret, tenantId } = t.makeKey();
    const res = await register(secret, { address: anAddress(), webhookUrl });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_body');
    expect(res.body.error.param).toBe('webhookUrl');
    expect(res.body.error.message).toMatch(/non-public|could not be resolved/);
    expect(await t.services.repos.subscriptions.count(tenantId)).toBe(0);
    expect(await t.services.repos.subscriptions.webhookSecret(tenantId)).toBeUndefined();
  });

  it('accepts a public address literal when private targets are not allowed', async () => {
    t = makeTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    const { secret } = t.makeKey();
    const res = await register(secret, { address: anAddress(), webhookUrl: 'https://93.184.215.14/hook' });
    expect(res.status).toBe(201);
    expect(res.body.webhookSecret).toBeTruthy();
  });

  it.each(['http://[::ffff:5db8:d70e]/hook', 'http://[::93.184.215.14]/hook', 'http://[64:ff9b::5db8:d70e]/hook', 'http://[2002:5db8:d70e::1]/hook'])(
    'accepts %s, whose embedded IPv4 is public',
    async (webhookUrl) => {
      t = makeTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
      const { secret } = t.makeKey();
      const res = await register(secret, { address: anAddress(), webhookUrl });
      expect(res.status).toBe(201);
    },
  );

  it('does not leave an existing subscription changed when the new URL is refused', async () => {
    t = makeTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    const { secret } = t.makeKey();
    const address = anAddress();
    await register(secret, { address, webhookUrl: 'https://93.184.215.14/hook' });
    const res = await register(secret, { address, webhookUrl: 'http://127.0.0.1/x' });
    expect(res.status).toBe(400);
    // The message names the switch a local receiver needs.
    expect(res.body.error.message).toBe(
      'webhookUrl host 127.0.0.1 is a loopback, private or otherwise non-public address; ' +
        'a receiver on this machine or network needs the server started with WEBHOOK_ALLOW_PRIVATE=true',
    );
    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', secret);
    expect(list.body.subscriptions[0].webhookUrl).toBe('https://93.184.215.14/hook');
  });
});

describe('GET /v1/tokens/registered and DELETE /v1/tokens/registered/:address', () => {
  it("lists only the caller's tenant's subscriptions, oldest first", async () => {
    t = makeTestApp();
    const k1 = t.makeKey();
    const k2 = t.makeKey();
    const a = anAddress('a');
    const b = anAddress('b');
    await register(k1.secret, { address: a });
    t.clock.advance(1000);
    await register(k1.secret, { address: b, webhookUrl: 'http://127.0.0.1:1/x' });
    await register(k2.secret, { address: a });
    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', k1.secret);
    expect(list.status).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect(list.body.subscriptions.map((s: { address: string }) => s.address)).toEqual([a, b]);
    expect(list.body.subscriptions[1]).toEqual({ id: expect.any(String), address: b, webhookUrl: 'http://127.0.0.1:1/x', createdAt: t.clock.seconds() });
    const other = await t.http.get('/v1/tokens/registered').set('x-api-key', k2.secret);
    expect(other.body.subscriptions.map((s: { address: string }) => s.address)).toEqual([a]);
  });

  it('lists nothing for a tenant without subscriptions', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const res = await t.http.get('/v1/tokens/registered').set('x-api-key', secret);
    expect(res.body).toEqual({ subscriptions: [] });
  });

  it('removes a subscription and answers it; removing again is 404', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const address = anAddress();
    const made = await register(secret, { address });
    const del = await t.http.delete(`/v1/tokens/registered/${address}`).set('x-api-key', secret);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ subscription: made.body.subscription });
    const again = await t.http.delete(`/v1/tokens/registered/${address}`).set('x-api-key', secret);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('subscription_not_found');
    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', secret);
    expect(list.body.subscriptions).toEqual([]);
  });

  it("cannot remove another tenant's subscription (404, and it stays)", async () => {
    t = makeTestApp();
    const k1 = t.makeKey();
    const k2 = t.makeKey();
    const address = anAddress();
    await register(k1.secret, { address });
    const res = await t.http.delete(`/v1/tokens/registered/${address}`).set('x-api-key', k2.secret);
    expect(res.status).toBe(404);
    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', k1.secret);
    expect(list.body.subscriptions).toHaveLength(1);
  });

  it('finds an EVM subscription by any spelling of its address', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    await register(secret, { address: '0xabcdef0123456789abcdef0123456789abcdef01' });
    const del = await t.http.delete('/v1/tokens/registered/0xABCDEF0123456789ABCDEF0123456789ABCDEF01').set('x-api-key', secret);
    expect(del.status).toBe(200);
  });

  it('answers a malformed path address with 400 invalid_address', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const res = await t.http.delete('/v1/tokens/registered/nope').set('x-api-key', secret);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_address');
  });

  it('needs a key', async () => {
    t = makeTestApp();
    expect((await t.http.get('/v1/tokens/registered')).status).toBe(401);
    expect((await t.http.delete(`/v1/tokens/registered/${anAddress()}`)).status).toBe(401);
  });

  it('keeps subscriptions of a token when the token later arrives by ingest', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const token = aToken();
    await register(secret, { address: token.address });
    t.ingest([token]);
    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', secret);
    expect(list.body.subscriptions[0].address).toBe(token.address);
  });
});

describe('the subscriptions service (shared with the dashboard)', () => {
  it('registers, lists and removes with the same rules as the routes', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey();
    const s = t.services.subscriptions;
    const address = anAddress();
    const first = await s.register(tenantId, address, 'http://127.0.0.1:1/x');
    expect(first.created).toBe(true);
    expect(first.webhookSecret).toBeTruthy();
    const again = await s.register(tenantId, address);
    expect(again).toEqual({ created: false, subscription: first.subscription });
    expect(await s.list(tenantId)).toEqual([first.subscription]);
    await expect(s.register(tenantId, 'bad')).rejects.toMatchObject({ kind: 'invalid', param: 'address' });
    expect(await s.remove(tenantId, address)).toEqual(first.subscription);
    await expect(s.remove(tenantId, address)).rejects.toThrow(expect.objectContaining({ kind: 'not_found' }));
  });

  it('is safe by default: without config it refuses private webhook targets', async () => {
    t = makeTestApp();
    const { createSubscriptions } = await import('../../src/services/subscriptions.js');
    const s = createSubscriptions({ clock: t.clock, repos: t.services.repos });
    const { tenantId } = t.makeKey();
    await expect(s.register(tenantId, anAddress(), 'http://127.0.0.1/x')).rejects.toMatchObject({ kind: 'invalid', param: 'webhookUrl' });
  });
});
