/**
 * The subscriptions repo on PostgreSQL answers as the SQLite one for the same random calls:
 * subscriptions of existing and missing tenants, duplicates refused, webhooks set and cleared,
 * removals, a token's subscribers, plan caps and webhook secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Db } from '../../src/store/sqlite/db.js';
import { createSubscriptionsRepo, type SubscriptionsRepo } from '../../src/store/sqlite/subscriptions-repo.js';
import { asyncRepo, sqliteTransaction, type Async } from '../../src/store/port/async.js';
import { createPgSubscriptionsRepo } from '../../src/store/pg/subscriptions-repo.js';
import { createPgPool } from '../../src/store/pg/pool.js';
import { engines, sameAnswers, show, type Call, type Engines } from './twins.js';

type Repo = Async<SubscriptionsRepo>;

const TENANTS = ['t1', 't2', 't3']; // t3 is never created
const ADDRESSES = ['A1', 'A2', 'a1'];
const tenantId = fc.constantFrom(...TENANTS);
const subId = fc.constantFrom('s1', 's2', 's3', 's4');
const address = fc.constantFrom(...ADDRESSES);
const url = fc.option(fc.constantFrom('https://hooks.example/a', 'https://hooks.example/b'));
const time = fc.integer({ min: 0, max: 20 });

const call = <A extends unknown[]>(name: string, args: fc.Arbitrary<A>, run: (r: Repo, ...a: A) => Promise<unknown>): fc.Arbitrary<Call<Repo>> =>
  args.map((a) => ({ label: `${name}${show(a)}`, run: (r: Repo) => run(r, ...a) }));

const simple = [
  call('find', fc.tuple(tenantId, address), (r, t, a) => r.find(t, a)),
  call('list', fc.tuple(tenantId), (r, t) => r.list(t)),
  call('count', fc.tuple(tenantId), (r, t) => r.count(t)),
  call('any', fc.tuple(), (r) => r.any()),
  call('insert', fc.tuple(subId, tenantId, address, url, time), (r, id, t, a, w, at) =>
    r.insert({ id, tenantId: t, address: a, webhookUrl: w, createdAt: at }),
  ),
  call('setWebhook', fc.tuple(subId, url), (r, id, w) => r.setWebhook(id, w)),
  call('remove', fc.tuple(subId), (r, id) => r.remove(id)),
  call('subscribers', fc.tuple(address), (r, a) => r.subscribers(a)),
  call('maxSubscriptions', fc.tuple(tenantId), (r, t) => r.maxSubscriptions(t)),
  call('webhookSecret', fc.tuple(tenantId), (r, t) => r.webhookSecret(t)),
  call('insertWebhookSecret', fc.tuple(tenantId, fc.constantFrom('sec1', 'sec2'), time), (r, t, s, at) => r.insertWebhookSecret(t, s, at)),
];

/** A transaction of a few calls, rolled back when `fail` (an error thrown after its writes) or when a call fails. */
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

const calls = fc.oneof({ arbitrary: fc.oneof(...simple), weight: 6 }, { arbitrary: transaction, weight: 1 });

const finalReads: Call<Repo>[] = [
  ...TENANTS.map((t): Call<Repo> => ({ label: `list(${t})`, run: (r) => r.list(t) })),
  ...ADDRESSES.map((a): Call<Repo> => ({ label: `subscribers(${a})`, run: (r) => r.subscribers(a) })),
];

const SEED = [
  ["INSERT INTO tenants (id, name, plan, created_at) VALUES ('t1', 'One', 'free', 0)"],
  ["INSERT INTO tenants (id, name, plan, created_at) VALUES ('t2', 'Two', 'pro', 0)"],
];
const seedLite = (db: Db) => SEED.forEach(([sql]) => db.exec(sql!));

describe('subscriptions repo on PostgreSQL', () => {
  let e: Engines;
  beforeAll(async () => {
    e = await engines('subscriptions');
  });
  afterAll(async () => {
    await e?.close();
  });

  it('answers as the SQLite repo does for the same random calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(calls, { minLength: 10, maxLength: 60 }), async (cs) => {
        await e.truncate(['webhook_secrets', 'subscriptions', 'tenants']);
        for (const [sql] of SEED) await e.pool.query(sql!);
        const store = e.sqlite();
        try {
          seedLite(store.db);
          await sameAnswers(asyncRepo(createSubscriptionsRepo(store.db), sqliteTransaction(store)), createPgSubscriptionsRepo(e.pool), [...cs, ...finalReads]);
        } finally {
          store.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('keeps the plan cap when registrations race on three instances', async () => {
    await e.truncate(['webhook_secrets', 'subscriptions', 'tenants']);
    await e.pool.query(SEED[0]![0]!);
    const pools = [1, 2, 3].map((i) => createPgPool({ url: e.db.url, instanceId: `subscriptions-${i}`, max: 2 }));
    try {
      const cap = (await createPgSubscriptionsRepo(e.pool).maxSubscriptions('t1'))!;
      // More registrations than the cap, each inserting only while the tenant is below it.
      const made = await Promise.all(
        Array.from({ length: cap + 5 }, (_, i) =>
          createPgSubscriptionsRepo(pools[i % 3]!).inTransaction(async (tx) => {
            if ((await tx.count('t1')) >= cap) return false;
            await tx.insert({ id: `s${i}`, tenantId: 't1', address: `A${i}`, webhookUrl: null, createdAt: i });
            return true;
          }),
        ),
      );
      expect(made.filter(Boolean)).toHaveLength(cap);
      expect(await createPgSubscriptionsRepo(e.pool).count('t1')).toBe(cap);
    } finally {
      for (const p of pools) await p.end();
    }
  });
});
