/**
 * WAL checkpoints run on a worker thread, not in a COMMIT on the event loop (docs/api.md, Ingest
 * limits): the server's connection has automatic checkpoints off, and the pages that ingests
 * write into the WAL still reach the database file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/sqlite/db.js';
import { createServices } from '../../src/services/index.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';

let dir: string;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('background checkpoints', () => {
  it('keep the event loop connection from checkpointing, and still move the WAL into the file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
    const path = join(dir, 'store.db');
    store = openStore(path);
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    expect(openStore(':memory:').db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    const before = statSync(path).size;
    const services = createServices({ store, clock: { now: () => 1_700_000_000_000 } });
    const tok = aToken();
    const records = [...withMarket(tok), ...Array.from({ length: 5000 }, (_, i) => aTrade(tok.address, { blockTime: 1_699_000_000 + i }))];
    services.ingest.ingest(records.map((value, i) => ({ line: i + 1, value })));
    let after = statSync(path).size;
    for (let i = 0; i < 200 && after < before + 500_000; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = statSync(path).size;
    }
    expect(after).toBeGreaterThan(before + 500_000);
  });
});
