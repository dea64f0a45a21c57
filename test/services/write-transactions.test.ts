/**
 * The services' writes on the async storage boundary (docs/operations.md, Many instances:
 * `inTransaction`): a count and the write it allows stay atomic when calls are in flight together,
 * and a write that fails part-way leaves nothing of itself behind. Real SQLite throughout; a failure
 * is a real one, raised by a temporary trigger.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { anAddress } from '../helpers/builders.js';

let t: TestApp | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
});

/** Makes every insert into `table` fail from now on, as a full disk or a constraint would. */
const failInserts = (app: TestApp, table: string) =>
  app.store.db.exec(`CREATE TEMP TRIGGER fail_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);

const count = (app: TestApp, sql: string, ...params: unknown[]) =>
  app.store.db
    .prepare(sql)
    .pluck()
    .get(...params) as number;

describe('writes in flight together', () => {
  it('issues exactly the plan cap of keys when twelve are asked for at once', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey(); // the free plan allows 3 active keys: 2 more
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => t!.services.accounts.issueKey(tenantId, { name: `k${i}` })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.map((r) => (r.reason as { kind: string }).kind)).toEqual(Array(10).fill('limit'));
    expect(count(t, 'SELECT count(*) FROM api_keys WHERE tenant_id = ?', tenantId)).toBe(3);
  });

  it('registers exactly the plan cap of tokens when more are registered at once', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey(); // the free plan allows 10 subscriptions
    const addresses = Array.from({ length: 14 }, () => anAddress());
    const results = await Promise.allSettled(addresses.map((a) => t!.services.subscriptions.register(tenantId, a)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.kind)).toEqual(Array(4).fill('limit'));
    expect(count(t, 'SELECT count(*) FROM subscriptions WHERE tenant_id = ?', tenantId)).toBe(10);
  });

  it('makes one webhook secret for a tenant whose first webhooks are set at once', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey();
    const results = await Promise.all(Array.from({ length: 5 }, () => t!.services.subscriptions.register(tenantId, anAddress(), 'http://127.0.0.1:9/hook')));
    expect(results.filter((r) => r.webhookSecret !== undefined)).toHaveLength(1);
    expect(count(t, 'SELECT count(*) FROM webhook_secrets WHERE tenant_id = ?', tenantId)).toBe(1);
  });

  it('admits exactly 30 sign-in attempts of one address when 40 arrive at once', async () => {
    t = makeTestApp();
    const answers = await Promise.all(Array.from({ length: 40 }, () => t!.services.signInThrottle.admit('203.0.113.7')));
    expect(answers.filter((a) => a.wait === 0)).toHaveLength(30);
    expect(answers.filter((a) => a.wait === 900)).toHaveLength(10);
    expect(count(t, "SELECT count(*) FROM sign_in_failures WHERE bucket = 'attempt:203.0.113.7'")).toBe(30);
  });
});

describe('a write that fails part-way', () => {
  it('leaves the old key as it was when the rotation cannot insert the new one', async () => {
    t = makeTestApp();
    const { tenantId, keyId } = t.makeKey();
    failInserts(t, 'api_keys');
    await expect(t.services.accounts.rotateKey(tenantId, keyId, 60)).rejects.toThrow('refused by the test');
    expect(t.store.db.prepare('SELECT expires_at, revoked_at FROM api_keys WHERE id = ?').get(keyId)).toEqual({ expires_at: null, revoked_at: null });
    expect((await t.services.accounts.listKeys(tenantId)).map((k) => k.status)).toEqual(['active']);
  });

  it('keeps no webhook secret when the registration that made it fails', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey();
    failInserts(t, 'subscriptions');
    await expect(t.services.subscriptions.register(tenantId, anAddress(), 'http://127.0.0.1:9/hook')).rejects.toThrow('refused by the test');
    expect(count(t, 'SELECT count(*) FROM webhook_secrets')).toBe(0);
  });

  it('keeps the expired sessions when the session that would end them cannot be stored', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey();
    await t.services.sessions.create(tenantId);
    t.clock.advance(13 * 3600 * 1000); // past the absolute limit
    failInserts(t, 'dashboard_sessions');
    await expect(t.services.sessions.create(tenantId)).rejects.toThrow('refused by the test');
    expect(count(t, 'SELECT count(*) FROM dashboard_sessions')).toBe(1);
  });

  it('counts nothing of a sign-in attempt whose second count cannot be written', async () => {
    t = makeTestApp();
    // The pair's row goes in first, the account's second: the trigger lets only the first through.
    t.store.db.exec(
      "CREATE TEMP TRIGGER fail_account BEFORE INSERT ON sign_in_failures WHEN NEW.bucket LIKE 'account:%' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
    );
    await expect(t.services.signInThrottle.begin('203.0.113.8', 'owner@example.com')).rejects.toThrow('refused by the test');
    expect(count(t, 'SELECT count(*) FROM sign_in_failures')).toBe(0);
  });

  it('tells the caches about a revocation once it is committed, and not about one that failed', async () => {
    t = makeTestApp();
    const { keyId, tenantId } = t.makeKey();
    const seen: boolean[] = [];
    const off = t.store.onChange((change) =>
      seen.push(change.accounts === true && count(t!, 'SELECT count(*) FROM api_keys WHERE revoked_at IS NOT NULL') === 1),
    );
    await expect(t.services.accounts.revokeKey(keyId, 'ten_someone_else')).rejects.toMatchObject({ kind: 'not_found' });
    expect(seen).toEqual([]);
    await t.services.accounts.revokeKey(keyId, tenantId);
    // Told once, and the revocation was already visible when it was.
    expect(seen).toEqual([true]);
    off();
  });
});
