// The store, service and HTTP tests again on PostgreSQL (npm run test:postgres): the same files as
// in npm test, with STORE=postgres, so makeTestApp() and makeTestStore() open a fresh PostgreSQL
// database (TEST_DATABASE_URL) instead of :memory: (docs/operations.md, Many instances: STORE=postgres). Every test file under the
// directories below that opens a store through those helpers runs here, unless SQLITE_ONLY names
// it with the reason; a file that opens no test store would only repeat its SQLite run.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defineConfig } from 'vitest/config';

const DIRECTORIES = [
  'test',
  'test/auth',
  'test/chains',
  'test/dashboard',
  'test/helpers',
  'test/http',
  'test/indexer',
  'test/ops',
  'test/port',
  'test/sdk',
  'test/services',
  'test/store',
  'test/stream',
  'test/subscriptions',
  'test/reorg',
  'test/udf',
  'test/v1',
];

/** Files that test SQLite itself: why each cannot run on PostgreSQL, and where PostgreSQL's own case is tested. */
export const SQLITE_ONLY: Record<string, string> = {
  'test/services/sqlite-sliced-write.test.ts':
    "SQLite's sliced write on its one connection (WAL spill, page cache, the commit's own turn); PostgreSQL's slices: test/engines/pg-ingest.test.ts",
  'test/store/ranking-plan.test.ts':
    "SQLite's query plan (EXPLAIN QUERY PLAN); PostgreSQL's indexes are pinned by test/engines/pg-schema.test.ts, no plan test",
  'test/store/rollup-migrations.test.ts':
    'SQLite migrations 008, 011 and 013 backfill rollups for older stores; PostgreSQL has had them since its first migration (none to test)',
  'test/stream/external-commits.test.ts':
    "another process's commits (a CLI child among them) seen through PRAGMA data_version; PostgreSQL's arrive on the bus: test/engines/pg-server.test.ts, pg-two-instances.test.ts",
  'test/stream/read-ahead-join.test.ts':
    "the hub takes in an ingest still open through SQLite's write gate (store.settled()); PostgreSQL has none, each commit is its own change: no PostgreSQL case",
  'test/stream/write-gate.test.ts':
    "a write held open on SQLite's one connection (BEGIN IMMEDIATE) holds stream messages; PostgreSQL readers see only commits (settled() is null): none",
  'test/udf/search-index-sqlite.test.ts':
    "SQLite's query plans of the symbols statements and its migration 010 of an existing store; PostgreSQL's plans: no test; its udf_listing triggers: test/engines/pg-schema.test.ts",
  'test/v1/cache-other-process.test.ts':
    "another process's commit on the SQLite file, seen through data_version; PostgreSQL's (commits announced on the bus): test/engines/pg-two-instances.test.ts",
  'test/v1/discovery-bounds-sqlite.test.ts':
    "SQLite's query plans of the search index, discovery and change log statements, and its migration 009; PostgreSQL's plans of their twins: no test",
  'test/v1/discovery-property-sqlite.test.ts':
    "another process's write to the same SQLite file reaching the boards (data version, change log); PostgreSQL's come as bus notices: test/engines/pg-two-instances.test.ts (cached reads; none for the boards)",
  'test/v1/ingest-slices.test.ts':
    "slices of one open SQLite transaction behind the write gate, read by a second SQLite connection; PostgreSQL's one transaction that rolls back whole: test/engines/pg-ingest.test.ts",
  'test/v1/ranked-sqlite.test.ts':
    "SQLite's rebuild of the read views from the trades (migration 003's backfill, rebuildReadViews); PostgreSQL has no rebuild, its views against SQLite's: test/engines/pg-ingest.test.ts",
  'test/v1/trader-board-sqlite.test.ts':
    "SQLite's query plans of the top-traders board's pages; PostgreSQL's own plans: test/engines/pg-trader-board-repo.test.ts",
  'test/v1/trades-plan.test.ts':
    'SQLite query plans (EXPLAIN QUERY PLAN) of the trades pages; PostgreSQL has the same indexes (test/engines/pg-schema.test.ts), no test reads its plans',
};

const OPENS_STORE = /\b(makeTestApp|makeTestStore)\b/;
const LOCAL_IMPORT = /from '(\.\.?\/[^']+)\.js'/g;

/** True when the file, or a test-local module it imports, opens a store through the helpers. */
function opensTestStore(file: string): boolean {
  const text = readFileSync(file, 'utf8');
  if (OPENS_STORE.test(text)) return true;
  for (const [, rel] of text.matchAll(LOCAL_IMPORT)) {
    const path = join(dirname(file), `${rel}.ts`);
    if (path.startsWith('test/') && !path.startsWith('test/helpers/') && OPENS_STORE.test(readFileSync(path, 'utf8'))) return true;
  }
  return false;
}

/** Files that, with STORE=postgres, make their own fresh database (a server or CLI run on a URL) rather than open one through the helpers. */
const OWN_DATABASE = new Set(['test/chains/start.test.ts']);

const skip = new Set(Object.keys(SQLITE_ONLY));
export const POSTGRES_FILES = DIRECTORIES.flatMap((d) =>
  readdirSync(d)
    .filter((n) => n.endsWith('.test.ts'))
    .map((n) => `${d}/${n}`),
)
  .sort()
  .filter((f) => !skip.has(f) && (opensTestStore(f) || OWN_DATABASE.has(f)));

export default defineConfig({
  test: {
    include: POSTGRES_FILES,
    environment: 'node',
    env: { STORE: 'postgres' },
    globalSetup: ['test/helpers/pg-template.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // .ci/run adds these counts to the closing "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-postgres-report.json' },
  },
});
