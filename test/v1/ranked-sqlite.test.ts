/**
 * SQLite's rebuild of the read views from the trades (migration 003's backfill, and what a bulk
 * loader runs, src/store/sqlite/read-views-repo.ts) gives what the ingest hook kept: the ranked reads
 * answer the same after it. PostgreSQL has no rebuild (its views are written by the ingest hook
 * only); the rest of the ranked reads run on both stores in test/v1/ranked.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { rebuildReadViews } from '../../src/store/sqlite/read-views-repo.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

describe('the read views rebuilt from the trades', () => {
  it('read the same as the ingest kept them (the migration backfill)', async () => {
    t = makeTestApp({ store: openStore(':memory:') });
    const tok = aToken();
    const markets = Array.from({ length: 50 }, () => aMarket(tok.address));
    t.ingest([tok, ...markets]);
    t.ingest(
      Array.from({ length: 50 }, (_, i) =>
        aTrade(tok.address, { blockTime: NOW - i * 997, volumeUsd: i, side: i % 3 ? 'buy' : 'sell', market: markets[i]!.address }),
      ),
    );
    const before = await Promise.all(['top-traders?window=30d', 'markets', 'overview'].map((p) => t.http.get(`/v1/token/${tok.address}/${p}`)));
    rebuildReadViews(t.store.db);
    t.store.notifyChange({ tokens: 'all' });
    const after = await Promise.all(['top-traders?window=30d', 'markets', 'overview'].map((p) => t.http.get(`/v1/token/${tok.address}/${p}`)));
    expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
  });
});
