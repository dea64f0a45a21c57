// The store, service and HTTP tests again on PostgreSQL (npm run test:postgres): the same files as
// in npm test, with STORE=postgres, so makeTestApp() and makeTestStore() open a fresh PostgreSQL
// database (TEST_DATABASE_URL) instead of :memory: (docs/operations.md, Testing on PostgreSQL). Every test file under the
// directories below that opens a store through those helpers runs here, unless SQLITE_ONLY names
// it with the reason; a file that opens no test store would only repeat its SQLite run.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defineConfig } from 'vitest/config';

const DIRECTORIES = [
  'test',
  'test/auth',
  'test/dashboard',
  'test/helpers',
  'test/http',
  'test/ops',
  'test/sdk',
  'test/services',
  'test/store',
  'test/stream',
  'test/subscriptions',
  'test/udf',
  'test/v1',
];

/** Files that test SQLite itself: why each cannot run on PostgreSQL, and where PostgreSQL's own case is tested. */
export const SQLITE_ONLY: Record<string, string> = {};

/** Not yet ported: each still reads the SQLite connection directly (t.store.db, test/v1/naive.ts). */
const PENDING = [
  'test/http/async-edge.test.ts',
  'test/http/storage-full.test.ts',
  'test/services/demo-feed.test.ts',
  'test/services/ingest-yields.test.ts',
  'test/services/ingest.test.ts',
  'test/services/write-transactions.test.ts',
  'test/store/candles-repo.test.ts',
  'test/store/market-candles.test.ts',
  'test/store/ranking-repo.test.ts',
  'test/store/seconds-rollups.test.ts',
  'test/store/window-repo.test.ts',
  'test/stream/channels.test.ts',
  'test/stream/errors.test.ts',
  'test/stream/lifecycle.test.ts',
  'test/stream/pages-browser.test.ts',
  'test/stream/property.test.ts',
  'test/stream/read-ahead.test.ts',
  'test/stream/slow-consumer.test.ts',
  'test/stream/transactions.test.ts',
  'test/subscriptions/events.test.ts',
  'test/subscriptions/ingest.test.ts',
  'test/subscriptions/subscriptions.test.ts',
  'test/subscriptions/webhook-claim-batch.test.ts',
  'test/subscriptions/webhook-fairness.test.ts',
  'test/subscriptions/webhooks.test.ts',
  'test/udf/rollups.test.ts',
  'test/udf/search-index.test.ts',
  'test/v1/cache.test.ts',
  'test/v1/candles.test.ts',
  'test/v1/discovery-bounds.test.ts',
  'test/v1/discovery-property.test.ts',
  'test/v1/ingest-limits.test.ts',
  'test/v1/overview.test.ts',
  'test/v1/prices-at.test.ts',
  'test/v1/ranked.test.ts',
  'test/v1/trader-board.test.ts',
  'test/v1/trades-range.test.ts',
  'test/v1/trades.test.ts',
];

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

const skip = new Set([...Object.keys(SQLITE_ONLY), ...PENDING]);
export const POSTGRES_FILES = DIRECTORIES.flatMap((d) =>
  readdirSync(d)
    .filter((n) => n.endsWith('.test.ts'))
    .map((n) => `${d}/${n}`),
)
  .sort()
  .filter((f) => !skip.has(f) && opensTestStore(f));

export default defineConfig({
  test: {
    include: POSTGRES_FILES,
    environment: 'node',
    env: { STORE: 'postgres' },
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // .ci/run adds these counts to the closing "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-postgres-report.json' },
  },
});
