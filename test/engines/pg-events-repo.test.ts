/**
 * The events repo on PostgreSQL answers as the SQLite one for the same random calls: inserts
 * (their ids), pages by tenant, id and time, pruning (the same rows, ties on time in id order)
 * and counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createEventsRepo, type EventsRepo } from '../../src/store/sqlite/events-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgEventsRepo } from '../../src/store/pg/events-repo.js';
import { inWriteOrder } from '../../src/store/pg/write-order.js';
import { engines, sameAnswers, show, type Call, type Engines } from './twins.js';

type Repo = Async<EventsRepo>;

const TENANTS = ['t1', 't2'];
const tenantId = fc.constantFrom(...TENANTS);
const time = fc.integer({ min: 0, max: 12 });
const small = fc.integer({ min: 0, max: 25 });

const call = <A extends unknown[]>(name: string, args: fc.Arbitrary<A>, run: (r: Repo, ...a: A) => Promise<unknown>): fc.Arbitrary<Call<Repo>> =>
  args.map((a) => ({ label: `${name}${show(a)}`, run: (r: Repo) => run(r, ...a) }));

// Inserts name existing tenants only: a refused insert uses up an identity number on PostgreSQL
// (numbers may have gaps there; docs/operations.md, Many instances), not on SQLite.
const calls = fc.oneof(
  {
    arbitrary: call('insert', fc.tuple(tenantId, fc.constantFrom('A1', 'A2'), time, fc.string({ maxLength: 6 })), (r, t, tok, at, d) =>
      r.insert(t, tok, at, d),
    ),
    weight: 4,
  },
  {
    arbitrary: call('page', fc.tuple(fc.constantFrom('t1', 't2', 't3'), small, time, fc.integer({ min: 1, max: 6 })), (r, t, a, s, l) => r.page(t, a, s, l)),
    weight: 2,
  },
  { arbitrary: call('prune', fc.tuple(time, fc.integer({ min: 0, max: 4 })), (r, b, l) => r.prune(b, l)), weight: 1 },
  { arbitrary: call('count', fc.tuple(fc.constantFrom('t1', 't2', 't3')), (r, t) => r.count(t)), weight: 1 },
);

const finalReads: Call<Repo>[] = TENANTS.map((t) => ({ label: `page(${t})`, run: (r) => r.page(t, 0, 0, 1000) }));

describe('events repo on PostgreSQL', () => {
  let e: Engines;
  beforeAll(async () => {
    e = await engines('events');
  });
  afterAll(async () => {
    await e?.close();
  });

  it('answers as the SQLite repo does for the same random calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(calls, { minLength: 10, maxLength: 80 }), async (cs) => {
        await e.truncate(['events', 'tenants']);
        const store = e.sqlite();
        try {
          for (const t of TENANTS) {
            const sql = `INSERT INTO tenants (id, name, plan, created_at) VALUES ('${t}', 'T', 'free', 0)`;
            store.db.exec(sql);
            await e.pool.query(sql);
          }
          await sameAnswers(asyncRepo(createEventsRepo(store.db)), createPgEventsRepo(e.pool), [...cs, ...finalReads]);
        } finally {
          store.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('writes inside the transaction of the client it is built on: all of it or nothing', async () => {
    await e.truncate(['events', 'tenants']);
    await e.pool.query(`INSERT INTO tenants (id, name, plan, created_at) VALUES ('t1', 'T', 'free', 0)`);
    const ids = await inWriteOrder(e.pool, async (client) => {
      const tx = createPgEventsRepo(client);
      return [await tx.insert('t1', 'A1', 1, 'a'), await tx.insert('t1', 'A1', 2, 'b')];
    });
    expect(ids).toEqual([1, 2]);
    await expect(
      inWriteOrder(e.pool, async (client) => {
        const tx = createPgEventsRepo(client);
        await tx.insert('t1', 'A1', 3, 'c');
        // Seen inside the transaction, not outside it.
        expect(await tx.count('t1')).toBe(3);
        expect(await createPgEventsRepo(e.pool).count('t1')).toBe(2);
        throw new Error('ingest refused');
      }),
    ).rejects.toThrow('ingest refused');
    const repo = createPgEventsRepo(e.pool);
    expect((await repo.page('t1', 0, 0, 10)).map((r) => r.data)).toEqual(['a', 'b']);
    // The rolled-back insert used up its number (docs/operations.md, Many instances: gaps).
    expect(await repo.insert('t1', 'A1', 4, 'd')).toBe(4);
  });
});
