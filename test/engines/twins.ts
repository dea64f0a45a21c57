/**
 * What the twin tests share: a fresh SQLite store and a fresh, migrated PostgreSQL database, and
 * a runner that makes the same calls on a SQLite repo (through asyncRepo) and its PostgreSQL twin
 * and compares every answer exactly (a call that throws on one must throw on the other).
 */
import { expect } from 'vitest';
import fc from 'fast-check';
import type pg from 'pg';
import { openStore, type Store } from '../../src/store/sqlite/db.js';
import { createPgPool } from '../../src/store/pg/pool.js';
import { migratePg } from '../../src/store/pg/migrate.js';
import { freshDatabase, type FreshDatabase } from './support.js';

/** One call of a random sequence, with a label for the failure message. */
export type Call<R> = { label: string; run: (repo: R) => Promise<unknown> };

type Settled = { value: unknown } | { threw: true };
const settle = async (p: () => Promise<unknown>): Promise<Settled> => {
  try {
    return { value: await p() };
  } catch {
    return { threw: true };
  }
};

/** Makes each call on `lite` then on `pg`, expecting the same answer (or both throwing); returns the answers. */
export async function sameAnswers<R>(lite: R, pgRepo: R, calls: readonly Call<R>[]): Promise<Settled[]> {
  const out: Settled[] = [];
  for (const [i, c] of calls.entries()) {
    const want = await settle(() => c.run(lite));
    const got = await settle(() => c.run(pgRepo));
    expect(got, `call ${i}: ${c.label}`).toEqual(want);
    out.push(want);
  }
  return out;
}

export type Engines = {
  pool: pg.Pool;
  db: FreshDatabase;
  /** A new SQLite store in memory, migrated. */
  sqlite(): Store;
  /** Empties the named tables of the PostgreSQL database, numbering from 1 again. */
  truncate(tables: readonly string[]): Promise<void>;
  close(): Promise<void>;
};

/** A fresh PostgreSQL database (migrated, with a pool) for one test file. */
export async function engines(label: string): Promise<Engines> {
  const db = await freshDatabase(label);
  const pool = createPgPool({ url: db.url, instanceId: `twin-${label}`, max: 4 });
  const c = await pool.connect();
  try {
    await migratePg(c);
  } finally {
    c.release();
  }
  return {
    pool,
    db,
    sqlite: () => openStore(':memory:', { backgroundCheckpoint: false }),
    async truncate(tables) {
      await pool.query(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY CASCADE`);
    },
    async close() {
      await pool.end();
      await db.drop();
    },
  };
}

/** A short label for a call's arguments (Buffers as hex). */
export const show = (args: unknown[]): string =>
  JSON.stringify(args, (_k, v: unknown) => (v && typeof v === 'object' && (v as { type?: string }).type === 'Buffer' ? 'buf' : v));

/** The random-call builder for a repo type: `callsOf<Repo>()('name', fc.tuple(...), (r, ...a) => r.name(...a))`. */
export const callsOf =
  <R>() =>
  <A extends unknown[]>(name: string, args: fc.Arbitrary<A>, run: (r: R, ...a: A) => Promise<unknown>): fc.Arbitrary<Call<R>> =>
    args.map((a) => ({ label: `${name}${show(a)}`, run: (r: R) => run(r, ...a) }));

/** Runs random call sequences on both repos, comparing every answer; returns how many answers were non-empty. */
export async function compareRandom<R>(
  lite: R,
  pgRepo: R,
  calls: fc.Arbitrary<Call<R>>,
  numRuns: number,
  isEmpty: (v: unknown) => boolean = (v) =>
    v === undefined || v === null || v === 0 || (Array.isArray(v) && v.length === 0) || (v instanceof Map && v.size === 0),
): Promise<{ total: number; nonEmpty: number }> {
  let total = 0;
  let nonEmpty = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(calls, { minLength: 1, maxLength: 20 }), async (cs) => {
      for (const a of await sameAnswers(lite, pgRepo, cs)) {
        total++;
        if (!isEmpty('value' in a ? a.value : undefined)) nonEmpty++;
      }
    }),
    { numRuns },
  );
  return { total, nonEmpty };
}
