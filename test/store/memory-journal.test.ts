/**
 * Statement journals in memory for an ingest batch's transaction only (docs/architecture.md, The
 * store: statement journals): PRAGMA temp_store is MEMORY (2) while an ingest writes, plain or
 * sliced, and back to the default (0) after it, after a failed one too; a retraction, any other
 * write and a transaction nested in an open one keep the default.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beginSlicedWrite, openStore, writeTransaction, type Store } from '../../src/store/sqlite/db.js';
import { createSqliteIngestEngine } from '../../src/store/sqlite/ingest-repo.js';
import { createServices } from '../../src/services/index.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';

let dir: string;
let store: Store;
const tempStore = () => store.db.pragma('temp_store', { simple: true });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'journal-'));
  store = openStore(join(dir, 'store.db'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('statement journals', () => {
  it('are in memory inside a transaction that asks for it, and on disk before, after and elsewhere', () => {
    expect(tempStore()).toBe(0);
    expect(writeTransaction(store.db, tempStore, { memoryJournal: true })()).toBe(2);
    expect(tempStore()).toBe(0);
    expect(writeTransaction(store.db, tempStore)()).toBe(0);
    // Nested in an open transaction: a savepoint, which changes nothing.
    expect(writeTransaction(store.db, () => writeTransaction(store.db, tempStore, { memoryJournal: true })())()).toBe(0);
  });

  it('go back to disk after a transaction that failed', () => {
    const failing = writeTransaction(
      store.db,
      () => {
        store.db.exec('CREATE TABLE scratch (x INTEGER)');
        throw new Error('refused');
      },
      { memoryJournal: true },
    );
    expect(failing).toThrow('refused');
    expect(tempStore()).toBe(0);
    expect(store.db.inTransaction).toBe(false);
    expect(store.db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'scratch'").pluck().get()).toBe(0);
  });

  it('are in memory for the whole of a sliced write, and on disk after its commit or rollback', () => {
    for (const commit of [true, false]) {
      const tx = beginSlicedWrite(store.db, 4096);
      expect(tempStore()).toBe(2);
      tx.end(commit);
      expect(tempStore()).toBe(0);
    }
  });

  it('are in memory for an ingest batch, plain or sliced, and on disk for a retraction', async () => {
    const engine = createSqliteIngestEngine(store);
    expect(engine.transaction(tempStore)()).toBe(2);
    expect(engine.retractTransaction(tempStore)()).toBe(0);

    const services = createServices({ store, clock: { now: () => 1_700_000_000_000 } });
    const tok = aToken();
    const seen: unknown[] = [];
    const within = () => void seen.push(tempStore());
    const records = (n: number, from: number) =>
      services.ingest.validate(
        [...withMarket(tok), ...Array.from({ length: n }, (_, i) => aTrade(tok.address, { blockTime: 1_699_000_000 + from + i }))].map((value, i) => ({
          line: i + 1,
          value,
        })),
      );
    services.ingest.write(await records(3, 0), { within });
    // More records than one slice: the sliced write, one transaction across turns.
    await services.ingest.writeSliced(await records(engine.slice * 2 + 1, 100), { within });
    expect(seen).toEqual([2, 2]);
    expect(tempStore()).toBe(0);
    expect(store.db.prepare('SELECT count(*) FROM trades').pluck().get()).toBe(3 + engine.slice * 2 + 1);
  });
});
