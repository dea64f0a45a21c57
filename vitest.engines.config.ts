// The engine tests (npm run test:engines): test/engines/ against a real PostgreSQL and Redis named
// by TEST_DATABASE_URL and TEST_REDIS_URL (scripts/engines.sh starts both on loopback). Kept out
// of `npm test`, which needs neither engine; without the URLs these tests fail, never skip.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/engines/**/*.test.ts'],
    globalSetup: ['test/engines/global-setup.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // .ci/run adds these counts to the closing "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-engines-report.json' },
  },
});
