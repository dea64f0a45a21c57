/**
 * Large ingest batches without blocking the event loop (docs/api.md, Ingest limits): records are
 * validated in chunks that yield; on SQLite they are then written as ONE transaction in slices
 * with the loop running between them (src/store/sqlite/sliced-write.ts says how and why).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { NumberedRecord } from '../store/port/ingest.js';
import { IngestRejected, type Validator } from './ingest-validator.js';
import { PARSE_CHUNK } from './ingest-parse.js';

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
