/**
 * Large ingest batches without blocking the event loop (docs/api.md, Ingest limits): records are
 * validated in chunks that yield, and written as ONE transaction in slices with the loop running
 * between them. SQLite shows a connection its own uncommitted writes, so while the slices run,
 * requests wait on `store.settled()` (src/http/write-gate.ts) instead of reading half a batch;
 * the loop stays free for /healthz, new connections and bodies still arriving. A second write
 * connection was the other choice: readers would see the last commit, but every other write of
 * this process (sign-in, key bookkeeping) would then wait synchronously for a lock that only
 * this same, blocked, event loop can release.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { beginSlicedWrite, type Store } from '../store/sqlite/db.js';
import type { IngestResult } from '../store/port/ingest.js';
import { IngestRejected, type NumberedRecord, type Validator } from './ingest-validator.js';
import { PARSE_CHUNK } from './ingest-parse.js';

/**
 * Records written between two yields of a sliced write. 250 trades over 50 tokens took 17-53 ms
 * on the benchmark's two cores under load, inside the 100 ms a request may hold the loop.
 */
export const WRITE_SLICE = 250;

/**
 * Page cache (KiB) while a sliced batch is open. The store's cache is 64 MB, so without this every
 * page the batch dirtied would wait in memory and be written to the WAL by the COMMIT, in one
 * synchronous step that grows with the batch; with a small cache, SQLite spills dirty pages to
 * the WAL as the slices run (still uncommitted, invisible to other connections), and the COMMIT
 * writes at most this much. The store's own size is put back after the batch.
 */
export const SPILL_CACHE_KIB = 4096;

/** What one slice wrote, and which tokens it changed (for the caches, after the commit). */
export type SliceResult = IngestResult & { change: Set<number> | 'all' };

/** Validates `values` in chunks that yield; the records, or IngestRejected naming the bad ones. */
export async function validateChunked(v: Validator, values: readonly { line: number; value: unknown }[]): Promise<NumberedRecord[]> {
  const records: NumberedRecord[] = [];
  for (let i = 0; i < values.length; i++) {
    const { line, value } = values[i]!;
    const record = v.check(line, value);
    if (record !== null) records.push({ line, record });
    if ((i + 1) % PARSE_CHUNK === 0) await yieldToLoop();
  }
  if (v.errors.length > 0) throw new IngestRejected(v.errors);
  return records;
}

/**
 * Writes `records` in one transaction, WRITE_SLICE at a time through `writeSlice` (a write
 * transaction, so nested here it is a savepoint), yielding between slices and before the COMMIT, with the page cache
 * at `spillKib` meanwhile (SPILL_CACHE_KIB); one batch at a time per store. Caches hear of the
 * change only after the commit.
 */
export function writeInSlices(
  store: Store,
  writeSlice: (slice: readonly NumberedRecord[]) => SliceResult,
  records: readonly NumberedRecord[],
  spillKib = SPILL_CACHE_KIB,
): Promise<IngestResult> {
  return store.exclusive(async () => {
    const tx = beginSlicedWrite(store.db, spillKib);
    let accepted = 0;
    let duplicates = 0;
    let change: Set<number> | 'all' = new Set();
    try {
      for (let i = 0; i < records.length; i += WRITE_SLICE) {
        if (i > 0) await yieldToLoop();
        const r = writeSlice(records.slice(i, i + WRITE_SLICE));
        accepted += r.accepted;
        duplicates += r.duplicates;
        if (r.change === 'all') change = 'all';
        else if (change !== 'all') for (const id of r.change) change.add(id);
      }
      // The COMMIT gets a turn of its own: it is the batch's largest step (it re-reads and
      // re-checksums the WAL frames the batch wrote and then overwrote; about 13 ms of CPU for
      // 20,000 trades, docs/operations.md, Benchmark), and after the last slice in the same turn it made
      // the longest stretch of the whole batch.
      await yieldToLoop();
      tx.end(true);
    } catch (err) {
      tx.end(false);
      throw err;
    }
    if (change === 'all' || change.size > 0) store.notifyChange({ tokens: change });
    return { accepted, duplicates };
  });
}
