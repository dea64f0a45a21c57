/**
 * `STORE=postgres` (with TEST_DATABASE_URL) runs the store, service and HTTP tests that go
 * through makeTestApp() and makeTestStore() on PostgreSQL: each store is a fresh database on that
 * server (created, migrated, dropped at close) instead of `:memory:`. Making the database is
 * asynchronous and the helpers are not, so every write a test makes through the helpers (ingest,
 * a key), every request and every repo call waits for those before it: a test written against
 * the synchronous SQLite helpers sees its steps in the same order. What such a test cannot do on
 * PostgreSQL: read a helper's ingest answer without awaiting it, expect a bad batch to throw at
 * once, or use the SQLite connection (`t.store.db`).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pgStoreOn, type PgStore } from '../../src/store/pg/pg-store.js';
import { createPgPool } from '../../src/store/pg/pool.js';
import { migratePgUrl } from '../../src/store/pg/migrate.js';

/**
 * Runs `write` (queued, so later) at the clock's time now: a synchronous ingest would have read
 * the clock at the call, and a test may move the clock right after it. Nothing else runs
 * meanwhile (requests and repo calls wait for the queue).
 */
export function atClockNow<T>(clock: { now(): number; set(ms: number): void }, write: () => T | Promise<T>): () => Promise<T> {
  const at = clock.now();
  return async () => {
    const later = clock.now();
    clock.set(at);
    try {
      return await write();
    } finally {
      clock.set(later);
    }
  };
}

/** The engine the helpers open: `STORE=postgres`, else SQLite. */
export const testEngine = (): 'sqlite' | 'postgres' => (process.env.STORE === 'postgres' ? 'postgres' : 'sqlite');

export type PgTestStore = {
  store: PgStore;
  /** Runs `step` after every step queued before it; the queue goes on after a failed step. */
  after<T>(step: () => T | Promise<T>): Promise<T>;
  /** Resolves once every step queued so far (and while waiting) has run. */
  settled(): Promise<void>;
  /** `o` with every method (deeply, for objects of methods) waiting for the queue first. */
  gate<T extends object>(o: T): T;
  /**
   * Resolves once the queue is settled and every call of a gated object made so far has finished,
   * those whose callers do not wait for them included (the app's lastUsedAt write).
   */
  idle(): Promise<void>;
  close(): Promise<void>;
};

/** Runs `fn` on a client of the server's admin database `url`, then closes it. */
export async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A fresh, migrated database (made in the background) and its store, opened at once. */
export function pgTestStore(): PgTestStore {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('STORE=postgres needs TEST_DATABASE_URL (scripts/engines.sh start prints it)');
  const name = `test_store_${process.pid}_${randomBytes(4).toString('hex')}`;
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  // A copy of the run's migrated template (test/helpers/pg-template.ts) when there is one.
  const template = process.env.TEST_PG_TEMPLATE;
  let queue: Promise<unknown> =
    template !== undefined
      ? admin(adminUrl, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`))
      : admin(adminUrl, (c) => c.query(`CREATE DATABASE "${name}"`)).then(() => migratePgUrl(url));
  const store = pgStoreOn(createPgPool({ url, instanceId: 'test' }), url);

  const after = <T>(step: () => T | Promise<T>): Promise<T> => {
    const run = queue.then(step);
    queue = run.catch(() => undefined);
    return run;
  };
  const waitQueue = async (): Promise<void> => {
    // Steps queued while waiting are waited for too.
    for (let q = queue; ; q = queue) {
      await q.catch(() => undefined);
      if (q === queue) return;
    }
  };
  const inFlight = new Set<Promise<unknown>>();
  const gate = <T extends object>(o: T): T =>
    new Proxy(o, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v === 'function') {
          return (...args: unknown[]) => {
            const call = waitQueue().then(() => (v as (...a: unknown[]) => unknown).apply(target, args));
            inFlight.add(call);
            const done = () => void inFlight.delete(call);
            call.then(done, done);
            return call;
          };
        }
        return typeof v === 'object' && v !== null ? gate(v) : v;
      },
    });

  const idle = async (): Promise<void> => {
    for (;;) {
      await waitQueue();
      if (inFlight.size === 0) return;
      await Promise.allSettled([...inFlight]);
    }
  };

  return {
    store,
    after,
    settled: waitQueue,
    gate,
    idle,
    async close() {
      await waitQueue();
      await store.close();
      await admin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
