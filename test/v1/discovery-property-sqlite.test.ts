/**
 * A write by another process on the same SQLite file (a CLI ingest) reaches the discovery boards
 * and search on the next request: SQLite's own way of seeing other processes' commits (the
 * store's data version and the change log). On PostgreSQL such commits arrive as notices on the
 * bus (test/engines/pg-two-instances.test.ts); the boards against the naive computations run on
 * both stores in test/v1/discovery-property.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/sqlite/db.js';
import { createServices } from '../../src/services/index.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { createWindowBoard } from '../../src/read/window-board.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

describe('discovery on a SQLite file another process writes', () => {
  it('show a write by another process (a CLI ingest) on the next request, recomputing only the token it touched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'board-'));
    try {
      const path = join(dir, 'store.db');
      t = makeTestApp({ store: openStore(path) });
      t.clock.set(NOW * 1000);
      const [a, b] = [aToken({ symbol: 'AAA' }), aToken({ symbol: 'BBB' })];
      t.ingest([...withMarket(a), ...withMarket(b), aTrade(a.address, { blockTime: NOW - 10, volumeUsd: 5 })]);
      const trending = async () => (await t.http.get('/v1/market/trending')).body.tokens.map((x: { symbol: string }) => x.symbol);
      expect(await trending()).toEqual(['AAA']);
      const board = createWindowBoard(t.store, t.services.repos, '24h');
      await board.refresh(() => t.clock.seconds());
      const before = board.recomputed();
      const cli = openStore(path);
      createServices({ store: cli, clock: { now: () => NOW * 1000 } }).ingest.ingest([
        { line: 1, value: aTrade(b.address, { blockTime: NOW - 5, volumeUsd: 50 }) },
      ]);
      cli.close();
      expect(await trending()).toEqual(['BBB', 'AAA']);
      // From the change log: the token the other process touched, not a rebuild.
      await board.refresh(() => t.clock.seconds());
      expect(board.recomputed() - before).toBe(1);
      expect((await t.http.get('/v1/search?q=bbb')).body.results).toEqual([expect.objectContaining({ address: b.address, volume24hUsd: 50 })]);
    } finally {
      t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
