/**
 * makeTestStore(): a fresh `:memory:` store with its services and a fake clock, and no app: for
 * tests of rules and repos that do not go through HTTP (property tests against a naive
 * computation, mostly). makeTestApp() adds the app on top of the same parts.
 */
import { openStore, type Store } from '../../src/store/db.js';
import { createServices, type SqliteServices } from '../../src/services/index.js';
import type { IngestRecord } from '../../src/domain/records.js';
import { fakeClock, type FakeClock } from './make-test-app.js';

export type TestStore = {
  store: Store;
  clock: FakeClock;
  services: SqliteServices;
  /** Ingests records through the real ingest path (throws IngestRejected on a bad batch). */
  ingest(records: readonly IngestRecord[]): { accepted: number; duplicates: number };
  close(): void;
};

export function makeTestStore(opts: { clock?: FakeClock } = {}): TestStore {
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
