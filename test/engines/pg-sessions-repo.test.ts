/**
 * Dashboard sessions and sign-in counts on PostgreSQL answer as on SQLite for the same random
 * calls on fresh stores: sessions inserted (twice: both refuse), found, touched, removed one by
 * one, by tenant and by expiry; throttle rows added, counted, listed newest first, cleared,
 * pruned and taken back one by one by the handle `add()` answered (a rowid on SQLite, a packed
 * ctid on PostgreSQL, where the table has no key), with equal times in one bucket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSessionsRepo, createSignInCountsRepo } from '../../src/store/sqlite/sessions-repo.js';
import { createAccountsRepo } from '../../src/store/sqlite/accounts-repo.js';
import { asyncRepo, sqliteTransaction } from '../../src/store/port/async.js';
import type { SessionsRepo, SignInCountsRepo } from '../../src/store/sqlite/repos.js';
import type { Async } from '../../src/store/port/async.js';
import { createPgSessionsRepo, createPgSignInCountsRepo } from '../../src/store/pg/sessions-repo.js';
import { createPgAccountsRepo } from '../../src/store/pg/accounts-repo.js';
import { engines, sameAnswers, callsOf, type Call, type Engines } from './twins.js';

type Sessions = Async<SessionsRepo>;
type Counts = Async<SignInCountsRepo>;

const TENANTS = ['t1', 't2'];
const hash = fc.constantFrom('aa', 'bb', 'cc', 'dd').map((h) => Buffer.from(h, 'hex'));
const time = fc.integer({ min: 0, max: 30 });
const session = callsOf<Sessions>();
const sessionCalls = fc.oneof(
  session('insert', fc.tuple(hash, fc.constantFrom(...TENANTS), time, time, time), (r, idHash, tenantId, now, expiresAt, absoluteExpiresAt) =>
    r.insert({ idHash, tenantId, now, expiresAt, absoluteExpiresAt }),
  ),
  session('find', fc.tuple(hash), (r, h) => r.find(h)),
  session('touch', fc.tuple(hash, time, time), (r, h, now, exp) => r.touch(h, now, exp)),
  session('remove', fc.tuple(hash), (r, h) => r.remove(h)),
  session('removeTenant', fc.tuple(fc.constantFrom(...TENANTS, 'nobody')), (r, t) => r.removeTenant(t)),
  session('removeExpired', fc.tuple(time), (r, t) => r.removeExpired(t)),
);
const sessionReads: Call<Sessions>[] = ['aa', 'bb', 'cc', 'dd'].map((h) => ({ label: `find(${h})`, run: (r) => r.find(Buffer.from(h, 'hex')) }));

/**
 * Each engine's handles from add() whose rows still exist, in order, so remove(i) takes back the
 * same row on both. A handle whose row is gone names nothing reliably (SQLite hands the rowid of
 * a deleted newest row out again), and the throttle never uses one: remove() spends a handle,
 * and clear() or prune() drop them all.
 */
const handles = new WeakMap<object, (number | bigint)[]>();
const bucket = fc.constantFrom('attempt:1.2.3.4', 'pair:1.2.3.4|a@x', 'account:a@x');
const count = callsOf<Counts>();
const countCalls = fc.oneof(
  count('add', fc.tuple(bucket, time), async (r, b, at) => {
    const h = await r.add(b, at);
    handles.get(r)!.push(h);
    return typeof h === 'number' || typeof h === 'bigint';
  }),
  count('remove', fc.tuple(fc.nat(20)), (r, i) => {
    const list = handles.get(r)!;
    return r.remove(list.length === 0 ? 0 : list.splice(i % list.length, 1)[0]!);
  }),
  count('recent', fc.tuple(bucket, time, fc.integer({ min: -1, max: 6 })), (r, b, since, max) => r.recent(b, since, max)),
  count('count', fc.tuple(bucket, time, fc.integer({ min: -1, max: 6 })), (r, b, since, max) => r.count(b, since, max)),
  count('clear', fc.tuple(bucket), (r, b) => {
    handles.set(r, []);
    return r.clear(b);
  }),
  count('prune', fc.tuple(time), (r, t) => {
    handles.set(r, []);
    return r.prune(t);
  }),
);

describe('sessions and sign-in counts on PostgreSQL', () => {
  let e: Engines;
  beforeAll(async () => {
    e = await engines('sessions');
    for (const id of TENANTS) await createPgAccountsRepo(e.pool).insertTenant({ id, name: id, plan: 'free', email: null, createdAt: 0 });
  });
  afterAll(async () => {
    await e?.close();
  });

  const sqlite = () => {
    const store = e.sqlite();
    for (const id of TENANTS) createAccountsRepo(store.db).insertTenant({ id, name: id, plan: 'free', email: null, createdAt: 0 });
    return store;
  };

  it('answers sessions as the SQLite repo does for the same random calls', async () => {
    let found = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(sessionCalls, { minLength: 5, maxLength: 40 }), async (calls) => {
        await e.truncate(['dashboard_sessions']);
        const store = sqlite();
        try {
          const answers = await sameAnswers(asyncRepo(createSessionsRepo(store.db), sqliteTransaction(store)), createPgSessionsRepo(e.pool), [
            ...calls,
            ...sessionReads,
          ]);
          found += answers.filter((a) => 'value' in a && a.value !== undefined).length;
        } finally {
          store.close();
        }
      }),
      { numRuns: 60 },
    );
    expect(found).toBeGreaterThan(30);
  });

  it('answers sign-in counts as the SQLite repo does, taking back exactly the row add() named', async () => {
    const rowsOf = async (store: ReturnType<typeof sqlite>) => ({
      lite: store.db.prepare('SELECT bucket, at FROM sign_in_failures ORDER BY bucket, at').raw().all(),
      pg: (await e.pool.query({ text: 'SELECT bucket, at FROM sign_in_failures ORDER BY bucket, at', rowMode: 'array' })).rows,
    });
    let removedSome = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(countCalls, { minLength: 5, maxLength: 40 }), async (calls) => {
        await e.truncate(['sign_in_failures']);
        const store = sqlite();
        try {
          const lite = asyncRepo(createSignInCountsRepo(store.db), sqliteTransaction(store));
          const pg = createPgSignInCountsRepo(e.pool);
          handles.set(lite, []);
          handles.set(pg, []);
          await sameAnswers(lite, pg, calls);
          const left = await rowsOf(store);
          expect(left.pg).toEqual(left.lite);
          if (calls.some((c) => c.label.startsWith('remove')) && calls.filter((c) => c.label.startsWith('add')).length > left.lite.length) removedSome++;
        } finally {
          store.close();
        }
      }),
      { numRuns: 60 },
    );
    expect(removedSome).toBeGreaterThan(5);
  });

  it('takes back one of two equal rows', async () => {
    await e.truncate(['sign_in_failures']);
    const pg = createPgSignInCountsRepo(e.pool);
    const first = await pg.add('pair:x', 7);
    const second = await pg.add('pair:x', 7);
    expect(second).not.toBe(first);
    await pg.remove(first);
    expect(await pg.recent('pair:x', 0, 10)).toEqual([7]);
    await pg.remove(first);
    expect(await pg.count('pair:x', 0, 10)).toBe(1);
    await pg.remove(second);
    expect(await pg.count('pair:x', 0, 10)).toBe(0);
  });
});
