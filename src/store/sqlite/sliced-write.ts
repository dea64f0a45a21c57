/**
 * SQLite's sliced ingest write (docs/api.md, Ingest limits): a large batch is written as ONE
 * transaction in slices, with the event loop running between them. SQLite shows a connection its
 * own uncommitted writes, so while the slices run, requests wait on `store.settled()`
 * (src/http/write-gate.ts) instead of reading half a batch; the loop stays free for /healthz, new
 * connections and bodies still arriving. A second write connection was the other choice: readers
 * would see the last commit, but every other write of this process (sign-in, key bookkeeping)
 * would then wait synchronously for a lock that only this same, blocked, event loop can release.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { beginSlicedWrite, type Store } from './db.js';
import { addSlice, type IngestResult, type NumberedRecord, type SliceResult } from '../port/ingest.js';

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

/**
 * Writes `records` in one transaction, WRITE_SLICE at a time through `writeSlice` (a write
 * transaction, so nested here it is a savepoint), yielding between slices and before the COMMIT,
 * with the page cache at `spillKib` meanwhile (SPILL_CACHE_KIB); one batch at a time per store.
 * `committed` (the change notice) runs after the COMMIT and before readers waiting on `settled()`
 * resume, so none of them caches a view the batch changed.
 */
export function slicedWrite(
  store: Store,
  writeSlice: (slice: readonly NumberedRecord[]) => void,
  records: readonly NumberedRecord[],
  committed: () => void,
  spillKib = SPILL_CACHE_KIB,
): Promise<void> {
  return store.exclusive(async () => {
    const tx = beginSlicedWrite(store.db, spillKib);
    try {
      for (let i = 0; i < records.length; i += WRITE_SLICE) {
        if (i > 0) await yieldToLoop();
        writeSlice(records.slice(i, i + WRITE_SLICE));
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
    committed();
  });
}

/**
 * slicedWrite with the sum of its slices and the change notice after the commit (caches hear of
 * the change only then), for a caller that writes its own slices (tests).
 */
export async function writeInSlices(
  store: Store,
  writeSlice: (slice: readonly NumberedRecord[]) => SliceResult,
  records: readonly NumberedRecord[],
  spillKib = SPILL_CACHE_KIB,
): Promise<IngestResult> {
  const sum: SliceResult = { accepted: 0, duplicates: 0, change: new Set() };
  const notify = () => {
    if (sum.change === 'all' || sum.change.size > 0) store.notifyChange({ tokens: sum.change });
  };
  await slicedWrite(store, (slice) => addSlice(sum, writeSlice(slice)), records, notify, spillKib);
  return { accepted: sum.accepted, duplicates: sum.duplicates };
}
