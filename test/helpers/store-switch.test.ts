/**
 * The test helpers open the engine STORE names (npm test: SQLite; npm run test:postgres:
 * PostgreSQL), so a file listed in vitest.postgres.config.ts really runs on PostgreSQL there.
 */
import { describe, expect, it } from 'vitest';
import { makeTestApp } from './make-test-app.js';
import { aToken, aTrade, withMarket } from './builders.js';

describe('the store the test helpers open', () => {
  it('is the engine STORE names, and answers a route from it', async () => {
    const t = makeTestApp();
    try {
      expect(t.store.kind).toBe(process.env.STORE === 'postgres' ? 'postgres' : 'sqlite');
      const tok = aToken();
      await t.ingest([...withMarket(tok), aTrade(tok.address, { blockTime: t.clock.seconds() - 10, priceUsd: 2.5 })]);
      const res = await t.http.get(`/v1/token/${tok.address}/overview`);
      expect(res.status).toBe(200);
      expect(res.body.priceUsd).toBe(2.5);
    } finally {
      await t.close();
    }
  });
});
