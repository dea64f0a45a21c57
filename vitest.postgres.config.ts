// The store, service and HTTP tests that run unchanged on PostgreSQL (npm run test:postgres):
// the same files as in npm test, with STORE=postgres, so makeTestApp() and makeTestStore() open a
// fresh PostgreSQL database (TEST_DATABASE_URL) instead of :memory: (docs/operations.md, Many
// instances). A file joins this list once it passes on both stores; the tests not listed still
// read the SQLite connection directly (t.store.db, test/v1/naive.ts) and must go through repos first.
import { defineConfig } from 'vitest/config';

export const POSTGRES_FILES = [
  'test/helpers/store-switch.test.ts',
  'test/auth/api-key.test.ts',
  'test/auth/credentials.test.ts',
  'test/auth/logs.test.ts',
  'test/auth/manage-scope.test.ts',
  'test/auth/no-hash-for-garbage.test.ts',
  'test/auth/revocation.test.ts',
  'test/auth/rotate.test.ts',
  'test/auth/unauthorized-matrix.test.ts',
  'test/dashboard/keys.test.ts',
  'test/dashboard/subscriptions.test.ts',
  'test/http/cache-fill-across-change.test.ts',
  'test/http/connection-limits.test.ts',
  'test/http/hot-path.test.ts',
  'test/http/methods.test.ts',
  'test/http/prepared-async.test.ts',
  'test/http/prepared-codings.test.ts',
  'test/http/query.test.ts',
  'test/http/response-cache-bytes.test.ts',
  'test/http/route.test.ts',
  'test/http/static-file.test.ts',
  'test/http/static-routes.test.ts',
  'test/http/store-unavailable.test.ts',
  'test/http/unknown-params.test.ts',
  'test/http/validate-fast.test.ts',
  'test/services/ingest-slice.test.ts',
  'test/store/checkpointer.test.ts',
  'test/store/external-changes.test.ts',
  'test/store/migrations.test.ts',
  'test/subscriptions/webhook-open-batch.test.ts',
  'test/subscriptions/webhook-target.test.ts',
  'test/udf/access.test.ts',
  'test/udf/charting-library.test.ts',
  'test/udf/history-live-property.test.ts',
  'test/udf/history-property.test.ts',
  'test/udf/history.test.ts',
  'test/udf/quotes.test.ts',
  'test/udf/symbols.test.ts',
  'test/udf/udf-domain.test.ts',
  'test/v1/cursor.test.ts',
  'test/v1/discovery.test.ts',
  'test/v1/market-candles-property.test.ts',
  'test/v1/market-candles.test.ts',
  'test/v1/read-views-migration.test.ts',
  'test/v1/windows.test.ts',
];

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
