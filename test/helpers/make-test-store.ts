/**
 * makeTestStore(): a fresh `:memory:` store with its services and a fake clock, and no app: for
 * tests of rules and repos that do not go through HTTP (property tests against a naive
 * computation, mostly). makeTestApp() adds the app on top of the same parts. With STORE=postgres
 * the store is a fresh PostgreSQL database (test/helpers/pg-test-store.ts).
 */
import { openStore, type Store } from '../../src/store/sqlite/db.js';
import { createServices, type SqliteServices } from '../../src/services/index.js';
import type { IngestRecord } from '../../src/domain/records.js';
import { fakeClock, type FakeClock } from './make-test-app.js';
import { createPgRepos } from '../../src/store/pg/repos.js';
import { atClockNow, pgTestStore, testEngine } from './pg-test-store.js';

export type TestStore = {
  store: Store;
  clock: FakeClock;
  services: SqliteServices;
  /** Ingests records through the real ingest path (throws IngestRejected on a bad batch). */
  ingest(records: readonly IngestRecord[]): { accepted: number; duplicates: number };
  close(): void | Promise<void>;
};

export function makeTestStore(opts: { clock?: FakeClock } = {}): TestStore {
  if (testEngine() === 'postgres') return makePgTestStore(opts);
  const store = openStore(':memory:');
  const clock = opts.clock ?? fakeClock();
  const services = createServices({ store, clock });
  return {
    store,
    clock,
    services,
    ingest: (records) => services.ingest.ingest(records.map((value, i) => ({ line: i + 1, value }))),
    close: () => store.close(),
  };
}

/** The same on a fresh PostgreSQL database; `store` and the ingest answers are typed as SQLite's (see makeTestApp). */
function makePgTestStore(opts: { clock?: FakeClock }): TestStore {
  const pg = pgTestStore();
  const clock = opts.clock ?? fakeClock();
  const services = createServices({ store: pg.store, clock, repos: pg.gate(createPgRepos(pg.store.pool, 'solana')) });
  return {
    store: pg.store as unknown as Store,
    clock,
    services: services as unknown as SqliteServices,
    ingest: (records) =>
      pg.after(atClockNow(clock, () => services.ingest.ingest(records.map((value, i) => ({ line: i + 1, value }))))) as unknown as {
        accepted: number;
        duplicates: number;
      },
    close: () => pg.close(),
  };
}
