/**
 * makeTestApp(): a fresh app on a `:memory:` store with migrations applied, a fake clock, and
 * helpers to ingest fixtures and make tenants and keys. Tests drive it with supertest on
 * app.callback(), with no port. With STORE=postgres the store is a fresh PostgreSQL database
 * instead (test/helpers/pg-test-store.ts).
 */
import request from 'supertest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/sqlite/db.js';
import { createServices, type SqliteServices } from '../../src/services/index.js';
import { createLogger } from '../../src/logger.js';
import type { IngestRecord } from '../../src/domain/records.js';
import type { Scope } from '../../src/services/accounts.js';
import { createAccountsRepo } from '../../src/store/sqlite/accounts-repo.js';
import { createPgAccountsRepo } from '../../src/store/pg/accounts-repo.js';
import { createPgRepos } from '../../src/store/pg/repos.js';
import { rawSql } from './raw-sql.js';
import { atClockNow, pgTestStore, testEngine } from './pg-test-store.js';
import { newId, newKeySecret } from '../../src/domain/api-key.js';

export type FakeClock = { now(): number; set(ms: number): void; advance(ms: number): void; seconds(): number };

/** A clock that moves only when told. Starts at 2023-11-14T22:13:20Z (1_700_000_000 s). */
export function fakeClock(startMs = 1_700_000_000_000): FakeClock {
  let t = startMs;
  return {
    now: () => t,
    set: (ms) => void (t = ms),
    advance: (ms) => void (t += ms),
    seconds: () => Math.floor(t / 1000),
  };
}

export type TestApp = {
  app: App;
  store: Store;
  clock: FakeClock;
  config: Config;
  services: SqliteServices;
  /** supertest against app.callback() */
  http: ReturnType<typeof request>;
  /** Ingests records through the real ingest path (throws IngestRejected on a bad batch). */
  ingest(records: readonly IngestRecord[]): { accepted: number; duplicates: number };
  /** A tenant with a key (scopes default read and manage, as the CLI's); returns the secret. */
  makeKey(opts?: { plan?: string; scopes?: Scope[]; tenantId?: string }): { secret: string; keyId: string; tenantId: string };
  /**
   * Runs one statement straight on the store's tables, as an operator's sqlite3 or psql session
   * would, and answers its rows (none for a statement that returns none): for tests of what is
   * stored, or of an edit made behind the app's back (no change is announced). `?` marks each
   * parameter (numbered for PostgreSQL, so no `?` may stand anywhere else). On PostgreSQL it is
   * queued behind the helpers' writes, as they are.
   */
  sql<R = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<R[]>;
  /**
   * Resolves once the store has finished every call made so far, the app's writes that nobody
   * waits for (lastUsedAt) included: at once on SQLite, where a call is done when it returns.
   */
  settled(): Promise<void>;
  close(): void | Promise<void>;
};

export function makeTestApp(opts: { env?: Record<string, string>; clock?: FakeClock; store?: Store } = {}): TestApp {
  if (opts.store === undefined && testEngine() === 'postgres') return makePgTestApp(opts);
  const config = loadConfig({ DATABASE_PATH: ':memory:', DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: 'true', ...opts.env });
  const store = opts.store ?? openStore(config.databasePath);
  const clock = opts.clock ?? fakeClock();
  const services = createServices({ store, clock, config });
  const app = createApp({ config, store, clock, services, logger: createLogger('silent') });
  const http = request(app.callback());
  return {
    app,
    store,
    clock,
    config,
    services,
    http,
    ingest: (records) => services.ingest.ingest(records.map((value, i) => ({ line: i + 1, value }))),
    makeKey(o = {}) {
      // Synchronous, so the many tests that make keys stay short: straight into the SQLite store,
      // as the accounts service writes them (tests of the service itself call it, awaited).
      const repo = createAccountsRepo(store.db);
      const tenantId = o.tenantId ?? newId('ten');
      if (o.tenantId === undefined) repo.insertTenant({ id: tenantId, name: 'Test tenant', plan: o.plan ?? 'free', email: null, createdAt: clock.seconds() });
      const s = newKeySecret();
      const keyId = newId('key');
      const scopes = o.scopes ?? ['read', 'manage'];
      repo.insertKey({ id: keyId, tenantId, name: null, hash: s.hash, prefix: s.prefix, last4: s.last4, scopes, createdAt: clock.seconds(), expiresAt: null });
      services.accounts.changed();
      return { secret: s.secret, keyId, tenantId };
    },
    // Runs at the call (rawSql's SQLite branch does not wait), as the synchronous helpers' writes do.
    sql: <R>(text: string, ...params: unknown[]) => rawSql<R>(store, text, params),
    settled: () => Promise.resolve(),
    close: () => store.close(),
  };
}

/**
 * The same app on a fresh PostgreSQL database (STORE=postgres): its writes, requests and repo
 * calls are queued behind the database's creation and each other (test/helpers/pg-test-store.ts).
 * `store` is the PostgreSQL store, typed as the SQLite one so the tests compile unchanged; a test
 * that reads `t.store.db` fails there. Its ingest answers promises (typed as the SQLite answers).
 */
function makePgTestApp(opts: { env?: Record<string, string>; clock?: FakeClock }): TestApp {
  const config = loadConfig({ DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: 'true', ...opts.env });
  const pg = pgTestStore();
  const { store } = pg;
  const clock = opts.clock ?? fakeClock();
  const services = createServices({ store, clock, config, repos: pg.gate(createPgRepos(store.pool, config.chains)) });
  const app = createApp({ config, store, clock, services, logger: createLogger('silent') });
  // As in a deployment, where the database is there before the instance serves: without Redis
  // its change bus (LISTEN/NOTIFY) listens before the first request, so no flush for the bus
  // coming up drops what a test has cached. (A test of a Redis bus waits for it itself.)
  if (config.redisUrl === null) void pg.after(() => app.deps.coord.ready(10_000));
  const callback = app.callback();
  // A request waits for the steps before it but is not one itself: its repo calls wait for the queue too.
  const http = request((req: Parameters<typeof callback>[0], res: Parameters<typeof callback>[1]) => void pg.settled().then(() => callback(req, res)));
  const accounts = createPgAccountsRepo(store.pool);
  return {
    app,
    store: store as unknown as Store,
    clock,
    config,
    services: services as unknown as SqliteServices,
    http,
    ingest: (records) =>
      pg.after(atClockNow(clock, () => services.ingest.ingest(records.map((value, i) => ({ line: i + 1, value }))))) as unknown as {
        accepted: number;
        duplicates: number;
      },
    makeKey(o = {}) {
      const tenantId = o.tenantId ?? newId('ten');
      const s = newKeySecret();
      const keyId = newId('key');
      const scopes = o.scopes ?? ['read', 'manage'];
      const now = clock.seconds();
      void pg.after(async () => {
        if (o.tenantId === undefined) await accounts.insertTenant({ id: tenantId, name: 'Test tenant', plan: o.plan ?? 'free', email: null, createdAt: now });
        await accounts.insertKey({ id: keyId, tenantId, name: null, hash: s.hash, prefix: s.prefix, last4: s.last4, scopes, createdAt: now, expiresAt: null });
        services.accounts.changed();
      });
      return { secret: s.secret, keyId, tenantId };
    },
    sql: <R>(text: string, ...params: unknown[]) => pg.after(() => rawSql<R>(store, text, params)),
    settled: () => pg.idle(),
    // The app's change bus first: its LISTEN connection would otherwise retry a dropped database.
    close: async () => {
      await app.deps.coord.close();
      await pg.close();
    },
  };
}
