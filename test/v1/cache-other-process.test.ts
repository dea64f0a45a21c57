/**
 * The response cache and a commit made by another process on the same SQLite file: the next read
 * notices it (the store's data_version) and drops every cached answer. On PostgreSQL other
 * processes' commits arrive as notices on the bus instead (test/engines/pg-two-instances.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { createServices } from '../../src/services/index.js';

const NOW = 1_700_000_000;

describe('response cache on a SQLite file', () => {
  it('drops everything when another process writes to the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cache-'));
    const path = join(dir, 'store.db');
    const t = makeTestApp({ store: openStore(path) });
    try {
      const tok = aToken();
      t.ingest([...withMarket(tok), aTrade(tok.address, { blockTime: NOW - 5, volumeUsd: 1 })]);
      expect((await t.http.get(`/v1/token/${tok.address}/overview`)).body.windows['5m'].trades).toBe(1);
      expect((await t.http.get('/v1/market/trending')).body.tokens).toHaveLength(1);
      // the CLI: its own connection and services
      const cli = openStore(path);
      const other = aToken();
      createServices({ store: cli, clock: t.clock }).ingest.ingest(
        [aTrade(tok.address, { blockTime: NOW - 2, volumeUsd: 1 }), ...withMarket(other), aTrade(other.address, { blockTime: NOW - 2 })].map((value, i) => ({
          line: i + 1,
          value,
        })),
      );
      cli.close();
      expect((await t.http.get(`/v1/token/${tok.address}/overview`)).body.windows['5m'].trades).toBe(2);
      expect((await t.http.get('/v1/market/trending')).body.tokens).toHaveLength(2);
    } finally {
      t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
