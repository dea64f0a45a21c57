/**
 * The meta repo on PostgreSQL answers as the SQLite one for the same random calls, and
 * getOrCreate() hands every instance the same value when they race to create it (one cursor
 * secret for all).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createMetaRepo, type MetaRepo } from '../../src/store/sqlite/meta-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgMetaRepo, pgCursorSecret } from '../../src/store/pg/meta-repo.js';
import { createPgPool } from '../../src/store/pg/pool.js';
import { engines, sameAnswers, show, type Call, type Engines } from './twins.js';

type Repo = Async<MetaRepo>;

const KEYS = ['demo', 'cursor_secret', 'Demo'];
const key = fc.constantFrom(...KEYS);
const value = fc.string({ maxLength: 8 });

const call = <A extends unknown[]>(name: string, args: fc.Arbitrary<A>, run: (r: Repo, ...a: A) => Promise<unknown>): fc.Arbitrary<Call<Repo>> =>
  args.map((a) => ({ label: `${name}${show(a)}`, run: (r: Repo) => run(r, ...a) }));

const calls = fc.oneof(
  call('get', fc.tuple(key), (r, k) => r.get(k)),
  call('set', fc.tuple(key, value), (r, k, v) => r.set(k, v)),
  // The answer says whether make() was called, as well as the value.
  call('getOrCreate', fc.tuple(key, value), async (r, k, v) => {
    let made = false;
    const got = await r.getOrCreate(k, () => ((made = true), v));
    return { got, made };
  }),
);

describe('meta repo on PostgreSQL', () => {
  let e: Engines;
  beforeAll(async () => {
    e = await engines('meta');
  });
  afterAll(async () => {
    await e?.close();
  });

  it('answers as the SQLite repo does for the same random calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(calls, { minLength: 5, maxLength: 40 }), async (cs) => {
        await e.truncate(['meta']);
        const store = e.sqlite();
        try {
          const reads = KEYS.map((k): Call<Repo> => ({ label: `get(${k})`, run: (r) => r.get(k) }));
          await sameAnswers(asyncRepo(createMetaRepo(store.db)), createPgMetaRepo(e.pool), [...cs, ...reads]);
        } finally {
          store.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('gives every instance the one cursor secret when they create it at once', async () => {
    await e.truncate(['meta']);
    const pools = [1, 2, 3, 4].map((i) => createPgPool({ url: e.db.url, instanceId: `meta-${i}`, max: 2 }));
    try {
      const secrets = await Promise.all(pools.flatMap((p) => [pgCursorSecret(p), pgCursorSecret(p)]));
      expect(secrets[0]).toHaveLength(32);
      expect(new Set(secrets.map((s) => s.toString('hex'))).size).toBe(1);
      expect((await e.pool.query(`SELECT value FROM meta WHERE key = 'cursor_secret'`)).rows).toEqual([{ value: secrets[0]!.toString('hex') }]);
    } finally {
      for (const p of pools) await p.end();
    }
  });
});
