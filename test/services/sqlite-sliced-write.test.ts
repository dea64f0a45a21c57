/**
 * SQLite's sliced ingest write (docs/api.md, Ingest limits): on the one connection a large batch
 * is written a slice per turn of the event loop, spilling its pages to the WAL as it goes so the
 * commit stays small, and commits in a turn of its own. SQLite only (the WAL, the page cache, the
 * connection's open transaction): a PostgreSQL ingest runs on a pool connection of its own and
 * awaits the server for every slice (its slices roll back whole: test/engines/pg-ingest.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { WRITE_SLICE, writeInSlices } from '../../src/store/sqlite/sliced-write.js';

let t: TestApp | undefined;
let dir: string | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('a sliced ingest write', () => {
  it('spills its pages to the WAL between slices, invisible to other connections, and puts the page cache back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'spill-'));
    const path = join(dir, 'store.db');
    t = makeTestApp({ store: openStore(path) });
    const tok = aToken();
    const m = aMarket(tok.address);
    t.ingest([tok, m]);
    const cacheBefore = t.store.db.pragma('cache_size', { simple: true });
    const records = Array.from({ length: 16 * WRITE_SLICE }, (_, i) => ({
      line: i + 1,
      value: aTrade(tok.address, { market: m.address, blockTime: 1_699_000_000 + i }),
    }));
    const valid = await t.services.ingest.validate(records);
    const other = new Database(path, { readonly: true });
    const walSize = () => statSync(`${path}-wal`).size;
    const start = walSize();
    const during: { wal: number; seen: number }[] = [];
    const ingest = t.services.ingest;
    // A 64 KiB cache: the slices dirty more than that, so pages reach the WAL before the commit.
    const write = writeInSlices(t.store, (slice) => ({ ...ingest.write(slice), change: new Set<number>() }), valid, 64);
    while (t.store.settled() === null) await new Promise((r) => setImmediate(r));
    while (t.store.settled() !== null) {
      during.push({ wal: walSize(), seen: other.prepare('SELECT count(*) FROM trades').pluck().get() as number });
      await new Promise((r) => setImmediate(r));
    }
    expect(await write).toEqual({ accepted: 16 * WRITE_SLICE, duplicates: 0 });
    expect(during.length).toBeGreaterThan(1);
    expect(Math.max(...during.map((d) => d.wal))).toBeGreaterThan(start);
    expect(during.every((d) => d.seen === 0)).toBe(true);
    expect(other.prepare('SELECT count(*) FROM trades').pluck().get()).toBe(16 * WRITE_SLICE);
    expect(t.store.db.pragma('cache_size', { simple: true })).toBe(cacheBefore);
    other.close();
  }, 60_000);

  it('commits in a turn of its own, after a turn with every slice written and the transaction still open', async () => {
    t = makeTestApp({ store: openStore(':memory:') });
    const tok = aToken();
    const m = aMarket(tok.address);
    t.ingest([tok, m]);
    const records = Array.from({ length: 3 * WRITE_SLICE }, (_, i) => ({
      line: i + 1,
      value: aTrade(tok.address, { market: m.address, blockTime: 1_699_000_000 + i }),
    }));
    const valid = await t.services.ingest.validate(records);
    const ingest = t.services.ingest;
    const db = t.store.db;
    let slices = 0;
    // What another task sees at each turn it gets: the slices written so far, and whether the
    // batch's transaction is still open.
    const seen: { slices: number; open: boolean }[] = [];
    const write = writeInSlices(
      t.store,
      (slice) => {
        slices++;
        return { ...ingest.write(slice), change: new Set<number>() };
      },
      valid,
    );
    let done = false;
    const watch = () => {
      if (done) return;
      seen.push({ slices, open: db.inTransaction });
      setImmediate(watch);
    };
    setImmediate(watch);
    const result = await write;
    done = true;
    expect(result).toEqual({ accepted: 3 * WRITE_SLICE, duplicates: 0 });
    expect(slices).toBe(3);
    // Between the last slice and the COMMIT the loop ran another task: the commit was not
    // appended to the last slice's turn.
    expect(seen).toContainEqual({ slices: 3, open: true });
    expect(db.inTransaction).toBe(false);
    expect(db.prepare('SELECT count(*) FROM trades').pluck().get()).toBe(3 * WRITE_SLICE);
  });
});
