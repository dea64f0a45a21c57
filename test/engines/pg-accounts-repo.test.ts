/**
 * The accounts repo on PostgreSQL answers as the SQLite one for the same random calls (tenants,
 * case-insensitive emails, keys, revocation, counts, and transactions that commit or roll back),
 * and its transaction makes a count and the insert it allows atomic across instances.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createAccountsRepo, type AccountsRepo } from '../../src/store/sqlite/accounts-repo.js';
import { asyncRepo, sqliteTransaction, type Async } from '../../src/store/port/async.js';
import { createPgAccountsRepo } from '../../src/store/pg/accounts-repo.js';
import { createPgPool } from '../../src/store/pg/pool.js';
import { engines, sameAnswers, show, type Call, type Engines } from './twins.js';

type Repo = Async<AccountsRepo>;

const tenantId = fc.constantFrom('t1', 't2', 't3');
const keyId = fc.constantFrom('k1', 'k2', 'k3', 'k4');
// NOCASE folds ASCII only: the last two are different emails on both engines.
const EMAILS = ['ops@example.com', 'OPS@Example.COM', 'b@example.com', 'É@example.com', 'é@example.com'];
const email = fc.constantFrom(...EMAILS);
const hash = fc.constantFrom('aa', 'bb', 'cc', 'dd').map((h) => Buffer.from(h, 'hex'));
const time = fc.integer({ min: 0, max: 50 });
const scopes = fc.subarray(['read', 'ingest', 'admin']);

const call = <A extends unknown[]>(name: string, args: fc.Arbitrary<A>, run: (r: Repo, ...a: A) => Promise<unknown>): fc.Arbitrary<Call<Repo>> =>
  args.map((a) => ({ label: `${name}${show(a)}`, run: (r: Repo) => run(r, ...a) }));

const simple: fc.Arbitrary<Call<Repo>>[] = [
  call('plan', fc.tuple(fc.constantFrom('free', 'pro', 'enterprise', 'none')), (r, n) => r.plan(n)),
  call('insertTenant', fc.tuple(tenantId, fc.constantFrom('free', 'pro', 'gold'), fc.option(email), time), (r, id, plan, mail, createdAt) =>
    r.insertTenant({ id, name: `Tenant ${id}`, plan, email: mail, createdAt }),
  ),
  call('tenant', fc.tuple(tenantId), (r, id) => r.tenant(id)),
  call('tenantByEmail', fc.tuple(email), (r, e) => r.tenantByEmail(e)),
  call('tenants', fc.tuple(), (r) => r.tenants()),
  call('passwordHash', fc.tuple(tenantId), (r, id) => r.passwordHash(id)),
  call('setPassword', fc.tuple(tenantId, fc.constantFrom('h1', 'h2')), (r, id, h) => r.setPassword(id, h)),
  call('setEmail', fc.tuple(tenantId, email), (r, id, e) => r.setEmail(id, e)),
  call(
    'insertKey',
    fc.tuple(keyId, tenantId, fc.option(fc.constantFrom('ci', 'laptop')), hash, scopes, time, fc.option(time)),
    (r, id, tenant, name, h, sc, createdAt, expiresAt) =>
      r.insertKey({ id, tenantId: tenant, name, hash: h, prefix: `pk_${id}`, last4: id.padStart(4, '0'), scopes: sc, createdAt, expiresAt }),
  ),
  call('key', fc.tuple(keyId), (r, id) => r.key(id)),
  call('keyByHash', fc.tuple(hash), (r, h) => r.keyByHash(h)),
  call('keys', fc.tuple(tenantId), (r, id) => r.keys(id)),
  call('revoke', fc.tuple(keyId, time), (r, id, t) => r.revoke(id, t)),
  call('setExpiry', fc.tuple(keyId, time), (r, id, t) => r.setExpiry(id, t)),
  call('touch', fc.tuple(keyId, time), (r, id, t) => r.touch(id, t)),
  call('countActiveKeys', fc.tuple(tenantId), (r, id) => r.countActiveKeys(id)),
];

/**
 * A transaction of a few calls, rolled back when `fail` (an error thrown after its writes) or when
 * a call fails: a failed statement ends a PostgreSQL transaction, so callers never catch a store
 * error inside one and go on (docs/operations.md, Many instances).
 */
const transaction: fc.Arbitrary<Call<Repo>> = fc.tuple(fc.array(fc.oneof(...simple), { minLength: 1, maxLength: 4 }), fc.boolean()).map(([inner, fail]) => ({
  label: `inTransaction[${inner.map((c) => c.label).join('; ')}]${fail ? ' then throw' : ''}`,
  run: (r: Repo) =>
    r.inTransaction(async (tx) => {
      const out: unknown[] = [];
      for (const c of inner) out.push(await c.run(tx));
      if (fail) throw new Error('rolled back');
      return out;
    }),
}));

/** Everything the store holds at the end, read back. */
const finalReads: Call<Repo>[] = [
  { label: 'tenants()', run: (r) => r.tenants() },
  ...['t1', 't2', 't3'].flatMap((t): Call<Repo>[] => [
    { label: `keys(${t})`, run: (r) => r.keys(t) },
    { label: `passwordHash(${t})`, run: (r) => r.passwordHash(t) },
    { label: `countActiveKeys(${t})`, run: (r) => r.countActiveKeys(t) },
  ]),
  ...EMAILS.map((m): Call<Repo> => ({ label: `tenantByEmail(${m})`, run: (r) => r.tenantByEmail(m) })),
];

describe('accounts repo on PostgreSQL', () => {
  let e: Engines;
  beforeAll(async () => {
    e = await engines('accounts');
  });
  afterAll(async () => {
    await e?.close();
  });

  it('answers as the SQLite repo does for the same random calls', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof({ arbitrary: fc.oneof(...simple), weight: 6 }, { arbitrary: transaction, weight: 1 }), { minLength: 10, maxLength: 60 }),
        async (calls) => {
          await e.truncate(['api_keys', 'tenants']);
          const store = e.sqlite();
          try {
            const lite = asyncRepo(createAccountsRepo(store.db), sqliteTransaction(store));
            await sameAnswers(lite, createPgAccountsRepo(e.pool), [...calls, ...finalReads]);
          } finally {
            store.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps a count and the insert it allows atomic when instances race', async () => {
    await e.truncate(['api_keys', 'tenants']);
    const pools = [1, 2, 3].map((i) => createPgPool({ url: e.db.url, instanceId: `accounts-${i}`, max: 2 }));
    try {
      const repo = createPgAccountsRepo(e.pool);
      await repo.insertTenant({ id: 't1', name: 'T', plan: 'free', email: null, createdAt: 0 });
      const cap = (await repo.plan('free'))!.maxKeys;
      // Twelve requests on three instances each insert a key only while the tenant is below its cap.
      const made = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          createPgAccountsRepo(pools[i % 3]!).inTransaction(async (tx) => {
            if ((await tx.countActiveKeys('t1')) >= cap) return false;
            await tx.insertKey({
              id: `k${i}`,
              tenantId: 't1',
              name: null,
              hash: Buffer.from([i]),
              prefix: 'p',
              last4: '0000',
              scopes: [],
              createdAt: i,
              expiresAt: null,
            });
            return true;
          }),
        ),
      );
      expect(made.filter(Boolean)).toHaveLength(cap);
      expect(await repo.countActiveKeys('t1')).toBe(cap);
    } finally {
      for (const p of pools) await p.end();
    }
  });
});
