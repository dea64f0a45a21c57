/**
 * Large ingest batches without blocking the event loop (docs/api.md, Ingest limits): records are
 * validated in chunks that yield, and, on SQLite, written as ONE transaction in slices with the
 * loop running between them (src/store/sqlite/sliced-write.ts says how and why).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Store } from '../store/sqlite/db.js';
import type { IngestResult, NumberedRecord, SliceResult } from '../store/port/ingest.js';
import { slicedWrite, SPILL_CACHE_KIB } from '../store/sqlite/sliced-write.js';
import { IngestRejected, type Validator } from './ingest-validator.js';
import { PARSE_CHUNK } from './ingest-parse.js';

// The slice sizes and the sliced write are the SQLite engine's; named here for their callers.
export { SPILL_CACHE_KIB, WRITE_SLICE } from '../store/sqlite/sliced-write.js';
export type { SliceResult } from '../store/port/ingest.js';

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
 * The sliced write of the SQLite store (slicedWrite), then the change notice: caches hear of the
 * change only after the commit.
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

/** Adds what one slice wrote to `sum` (the batch's total so far). */
export function addSlice(sum: SliceResult, r: SliceResult): void {
  sum.accepted += r.accepted;
  sum.duplicates += r.duplicates;
  if (r.change === 'all') sum.change = 'all';
  else if (sum.change !== 'all') for (const id of r.change) sum.change.add(id);
}
