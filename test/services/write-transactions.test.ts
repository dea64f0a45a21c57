/**
 * The services' writes on the async storage boundary (docs/operations.md, Many instances:
 * `inTransaction`): a count and the write it allows stay atomic when calls are in flight together,
 * and a write that fails part-way leaves nothing of itself behind. A real store of either engine
 * throughout; a failure is a real one, raised by a trigger.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { anAddress } from '../helpers/builders.js';
import { rawSql } from '../helpers/raw-sql.js';
import type { Store } from '../../src/store/sqlite/db.js';
import type { PgStore } from '../../src/store/pg/pg-store.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/**
 * Makes every insert into `table` (those whose row passes `when`, a condition on NEW) fail from
 * now on, as a full disk or a constraint would: a temporary trigger on SQLite, a trigger in the
 * test's own database on PostgreSQL.
 */
async function failInserts(app: TestApp, table: string, when?: string): Promise<void> {
  // A repo call waits for the helpers' queued writes (the key made before, on PostgreSQL).
  await app.services.repos.stats.answers();
  const store = app.store as Store | PgStore;
  const name = `fail_${table}`;
  if (store.kind === 'sqlite') {
    store.db.exec(`CREATE TEMP TRIGGER ${name} BEFORE INSERT ON ${table} ${when ? `WHEN ${when}` : ''} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
    return;
  }
  await store.pool.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
  await store.pool.query(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW ${when ? `WHEN (${when})` : ''} EXECUTE FUNCTION ${name}()`);
}

/** The count `sql` (a `SELECT count(*) ...`) answers, straight from the tables. */
const count = async (app: TestApp, sql: string, ...params: unknown[]) => Object.values((await rawSql(app.store, sql, params))[0]!)[0] as number;

describe('writes in flight together', () => {
  it('issues exactly the plan cap of keys when twelve are asked for at once', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey(); // the free plan allows 3 active keys: 2 more
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => t!.services.accounts.issueKey(tenantId, { name: `k${i}` })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.map((r) => (r.reason as { kind: string }).kind)).toEqual(Array(10).fill('limit'));
    expect(await count(t, 'SELECT count(*) FROM api_keys WHERE tenant_id = ?', tenantId)).toBe(3);
  });

  it('registers exactly the plan cap of tokens when more are registered at once', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey(); // the free plan allows 10 subscriptions
    const addresses = Array.from({ length: 14 }, () => anAddress());
    const results = await Promise.allSettled(addresses.map((a) => t!.services.subscriptions.register(tenantId, a)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.kind)).toEqual(Array(4).fill('limit'));
    expect(await count(t, 'SELECT count(*) FROM subscriptions WHERE tenant_id = ?', tenantId)).toBe(10);
  });

  it('makes one webhook secret for a tenant whose first webhooks are set at once', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey();
    const results = await Promise.all(Array.from({ length: 5 }, () => t!.services.subscriptions.register(tenantId, anAddress(), 'http://127.0.0.1:9/hook')));
    expect(results.filter((r) => r.webhookSecret !== undefined)).toHaveLength(1);
    expect(await count(t, 'SELECT count(*) FROM webhook_secrets WHERE tenant_id = ?', tenantId)).toBe(1);
  });

  it('admits exactly 30 sign-in attempts of one address when 40 arrive at once', async () => {
    t = makeTestApp();
    const answers = await Promise.all(Array.from({ length: 40 }, () => t!.services.signInThrottle.admit('203.0.113.7')));
    expect(answers.filter((a) => a.wait === 0)).toHaveLength(30);
    expect(answers.filter((a) => a.wait === 900)).toHaveLength(10);
    expect(await count(t, "SELECT count(*) FROM sign_in_failures WHERE bucket = 'attempt:203.0.113.7'")).toBe(30);
  });
});

describe('a write that fails part-way', () => {
  it('leaves the old key as it was when the rotation cannot insert the new one', async () => {
    t = makeTestApp();
    const { tenantId, keyId } = t.makeKey();
    await failInserts(t, 'api_keys');
    await expect(t.services.accounts.rotateKey(tenantId, keyId, 60)).rejects.toThrow('refused by the test');
    expect(await rawSql(t.store, 'SELECT expires_at, revoked_at FROM api_keys WHERE id = ?', [keyId])).toEqual([{ expires_at: null, revoked_at: null }]);
    expect((await t.services.accounts.listKeys(tenantId)).map((k) => k.status)).toEqual(['active']);
  });

  it('keeps no webhook secret when the registration that made it fails', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey();
    await failInserts(t, 'subscriptions');
    await expect(t.services.subscriptions.register(tenantId, anAddress(), 'http://127.0.0.1:9/hook')).rejects.toThrow('refused by the test');
    expect(await count(t, 'SELECT count(*) FROM webhook_secrets')).toBe(0);
  });

  it('keeps the expired sessions when the session that would end them cannot be stored', async () => {
    t = makeTestApp();
    const { tenantId } = t.makeKey();
    await t.services.sessions.create(tenantId);
    t.clock.advance(13 * 3600 * 1000); // past the absolute limit
    await failInserts(t, 'dashboard_sessions');
    await expect(t.services.sessions.create(tenantId)).rejects.toThrow('refused by the test');
    expect(await count(t, 'SELECT count(*) FROM dashboard_sessions')).toBe(1);
  });

  it('counts nothing of a sign-in attempt whose second count cannot be written', async () => {
    t = makeTestApp();
    // The pair's row goes in first, the account's second: the trigger lets only the first through.
    await failInserts(t, 'sign_in_failures', "NEW.bucket LIKE 'account:%'");
    await expect(t.services.signInThrottle.begin('203.0.113.8', 'owner@example.com')).rejects.toThrow('refused by the test');
    expect(await count(t, 'SELECT count(*) FROM sign_in_failures')).toBe(0);
  });

  it('tells the caches about a revocation once it is committed, and not about one that failed', async () => {
    t = makeTestApp();
    const { keyId, tenantId } = t.makeKey();
    // On PostgreSQL the app's change bus (LISTEN/NOTIFY) drops every cached answer (accounts
    // included) while it is not listening yet; once it is, the listeners hear this instance's commits only.
    await t.app.deps.coord.ready(10_000);
    await t.services.repos.stats.answers(); // the key is stored (queued on PostgreSQL)
    // Each notice reads the table as it is told (at once on SQLite, a statement sent at once on PostgreSQL).
    const seen: Promise<boolean>[] = [];
    const off = t.store.onChange((change) =>
      seen.push(
        change.accounts === true ? count(t!, 'SELECT count(*) FROM api_keys WHERE revoked_at IS NOT NULL').then((n) => n === 1) : Promise.resolve(false),
      ),
    );
    await expect(t.services.accounts.revokeKey(keyId, 'ten_someone_else')).rejects.toMatchObject({ kind: 'not_found' });
    expect(seen).toEqual([]);
    await t.services.accounts.revokeKey(keyId, tenantId);
    // Told once, and the revocation was already visible when it was.
    expect(await Promise.all(seen)).toEqual([true]);
    off();
  });
});
