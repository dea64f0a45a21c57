/** Dashboard subscriptions: register with a webhook, list, remove; tenant isolation. */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { anAddress } from '../helpers/builders.js';
import { signedInTenant, type Signed } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

const as = (s: Signed) => ({ Cookie: s.cookie, 'X-CSRF-Token': s.csrf });
const SUBS = '/dashboard/api/subscriptions';

describe('dashboard subscriptions', () => {
  it('registers a token (201), again (200), and lists it', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const address = anAddress('sub');
    const first = await t.http.post(SUBS).set(as(s)).send({ address });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ subscription: { id: expect.any(String), address, webhookUrl: null, createdAt: t.clock.seconds() } });
    const again = await t.http.post(SUBS).set(as(s)).send({ address });
    expect(again.status).toBe(200);
    expect(again.body.subscription.id).toBe(first.body.subscription.id);
    const list = await t.http.get(SUBS).set('Cookie', s.cookie);
    expect(list.body).toEqual({ subscriptions: [first.body.subscription] });
  });

  it('answers the webhook secret once, the first time a webhook is set', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const a = await t.http
      .post(SUBS)
      .set(as(s))
      .send({ address: anAddress('a'), webhookUrl: 'http://127.0.0.1:9/hook' });
    expect(a.status).toBe(201);
    expect(a.headers['cache-control']).toBe('no-store');
    expect(a.body.webhookSecret).toMatch(/^whsec_/);
    expect(a.body.subscription.webhookUrl).toBe('http://127.0.0.1:9/hook');
    const b = await t.http
      .post(SUBS)
      .set(as(s))
      .send({ address: anAddress('b'), webhookUrl: 'http://127.0.0.1:9/other' });
    expect(b.status).toBe(201);
    expect(b.body.webhookSecret).toBeUndefined();
    expect(JSON.stringify((await t.http.get(SUBS).set('Cookie', s.cookie)).body)).not.toContain(a.body.webhookSecret);
  });

  it.each([
    [{ address: 'not-an-address' }, 'address'],
    [{}, 'address'],
    [{ address: 'So11111111111111111111111111111111111111112', webhookUrl: 'ftp://example.com/x' }, 'webhookUrl'],
    [{ address: 'So11111111111111111111111111111111111111112', webhookUrl: 42 }, 'webhookUrl'],
  ])('refuses %j with 400 naming the field, and registers nothing', async (body, param) => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const res = await t.http.post(SUBS).set(as(s)).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_body', param });
    expect(await t.services.subscriptions.list(s.tenant.id)).toEqual([]);
  });

  it('stops at the plan cap with 409 subscription_limit_reached (free: 10)', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    for (let i = 0; i < 10; i++)
      expect(
        (
          await t.http
            .post(SUBS)
            .set(as(s))
            .send({ address: anAddress('cap') })
        ).status,
      ).toBe(201);
    const over = await t.http
      .post(SUBS)
      .set(as(s))
      .send({ address: anAddress('cap') });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('subscription_limit_reached');
  });

  it('removes a subscription; removing it again is 404 subscription_not_found; a bad address is 400', async () => {
    t = makeTestApp();
    const s = await signedInTenant(t);
    const address = anAddress('rm');
    await t.http.post(SUBS).set(as(s)).send({ address });
    const res = await t.http.delete(`${SUBS}/${address}`).set(as(s));
    expect(res.status).toBe(200);
    expect(res.body.subscription.address).toBe(address);
    const again = await t.http.delete(`${SUBS}/${address}`).set(as(s));
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('subscription_not_found');
    const bad = await t.http.delete(`${SUBS}/not-an-address`).set(as(s));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_address');
  });

  it('keeps tenants apart: another tenant cannot see or remove a subscription', async () => {
    t = makeTestApp();
    const a = await signedInTenant(t);
    const b = await signedInTenant(t);
    const address = anAddress('iso');
    await t.http.post(SUBS).set(as(a)).send({ address });
    expect((await t.http.get(SUBS).set('Cookie', b.cookie)).body.subscriptions).toEqual([]);
    expect((await t.http.delete(`${SUBS}/${address}`).set(as(b))).status).toBe(404);
    expect(await t.services.subscriptions.list(a.tenant.id)).toHaveLength(1);
  });
});
