/**
 * The validator of an ingest batch (docs/api.md, Data and ingest): each line checked on its own,
 * tokens tracked in batch order, the first errors kept to name in the refusal. Both ingests (the
 * SQLite one in ingest.ts, the engine one in ingest-engine.ts) and the batch helpers use it.
 */
import { parseRecord, type IngestRecord } from '../domain/records.js';

export type LineError = { line: number; error: string };
export type NumberedRecord = { line: number; record: IngestRecord };

/** A batch refused whole: nothing of it was written. */
export class IngestRejected extends Error {
  constructor(readonly errors: LineError[]) {
    super(`${errors.length} invalid record${errors.length === 1 ? '' : 's'}`);
  }
}

export type Validator = {
  /** Validates one raw record at `line`; returns it, or records the error and returns null. */
  check(line: number, value: unknown): IngestRecord | null;
  /** Records a line refused before validation (not JSON). */
  reject(line: number, error: string): void;
  /** The first MAX_ERRORS errors, then a line saying the rest are not listed. */
  readonly errors: LineError[];
  /** How many lines were refused in all. */
  readonly invalid: number;
};

const MAX_ERRORS = 100;

/**
 * A validator for one batch, tracking which tokens the batch defines, in order; `stored(address)`
 * tells whether a token is stored already (asked once per address).
 */
export function createValidator(stored: (address: string) => boolean): Validator {
  const defined = new Set<string>();
  const known = new Map<string, boolean>();
  const errors: LineError[] = [];
  const exists = (address: string): boolean => {
    if (defined.has(address)) return true;
    let k = known.get(address);
    if (k === undefined) {
      k = stored(address);
      known.set(address, k);
    }
    return k;
  };
  let invalid = 0;
  const reject = (line: number, error: string) => {
    invalid++;
    if (errors.length < MAX_ERRORS) errors.push({ line, error });
    else if (errors.length === MAX_ERRORS) errors.push({ line, error: 'too many errors; the rest are not listed' });
  };
  return {
    errors,
    get invalid() {
      return invalid;
    },
    reject,
    check(line, value) {
      const parsed = parseRecord(value);
      let error: string | null = null;
      if (!parsed.ok) error = parsed.error;
      else if (parsed.record.type === 'token') defined.add(parsed.record.address);
      else if (!exists(parsed.record.token)) error = `unknown token ${parsed.record.token}`;
      if (error === null) return parsed.ok ? parsed.record : null;
      reject(line, error);
      return null;
    },
  };
}
