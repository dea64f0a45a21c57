/**
 * Parsing an ingest body (docs/api.md, Ingest limits): NDJSON lines or the elements of a JSON array,
 * parsed one record at a time in chunks that yield to the event loop, and counted as they are
 * found, so a body of millions of tiny records is refused at record 100,001 before the rest is
 * parsed or even split. Nothing here holds more than the body text and the records it keeps.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { LineError } from './ingest.js';

/** Records one batch (one `POST /v1/ingest`) may hold. */
export const MAX_INGEST_RECORDS = 100_000;
/** Records parsed between two yields to the event loop (a few milliseconds of work). */
export const PARSE_CHUNK = 2000;
const MAX_ERRORS = 100;

export type Parsed = { values: { line: number; value: unknown }[]; errors: LineError[] };

/** The body holds more than MAX_INGEST_RECORDS records. */
export class TooManyRecords extends Error {
  constructor() {
    super(`a batch holds at most ${MAX_INGEST_RECORDS.toLocaleString('en')} records; split it`);
  }
}

/** The body is not one JSON array (for the array format). */
export class NotJsonArray extends Error {}

/**
 * Splits NDJSON text into numbered values; a line that is not JSON becomes an error. Blank lines
 * are skipped but still counted, so line numbers match the caller's file. Throws TooManyRecords
 * as soon as the count passes `max`.
 */
export async function parseNdjsonChunked(text: string, max = MAX_INGEST_RECORDS, firstLine = 1): Promise<Parsed> {
  const values: { line: number; value: unknown }[] = [];
  const errors: LineError[] = [];
  let records = 0;
  let line = firstLine - 1;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    line++;
    const raw = text.slice(start, end).trim();
    start = end + 1;
    if (raw === '') continue;
    if (++records > max) throw new TooManyRecords();
    try {
      values.push({ line, value: JSON.parse(raw) });
    } catch {
      if (errors.length <= MAX_ERRORS) errors.push({ line, error: 'not valid JSON' });
    }
    if (records % PARSE_CHUNK === 0) await yieldToLoop();
  }
  return { values, errors };
}

const [OPEN_SQ, CLOSE_SQ, OPEN_CU, CLOSE_CU, QUOTE, BACKSLASH, COMMA] = [0x5b, 0x5d, 0x7b, 0x7d, 0x22, 0x5c, 0x2c];
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The elements of a JSON array body, numbered from 1, each parsed on its own. A scan that tracks
 * strings and nesting finds where each top-level element ends; each is then given to JSON.parse,
 * which checks it fully. Throws NotJsonArray for a body that is not one array, TooManyRecords
 * past `max` elements.
 */
export async function parseJsonArrayChunked(text: string, max = MAX_INGEST_RECORDS): Promise<Parsed> {
  const values: { line: number; value: unknown }[] = [];
  let i = 0;
  const n = text.length;
  const skip = () => {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
  };
  skip();
  if (i === n) return { values, errors: [] };
  if (text.charCodeAt(i) !== OPEN_SQ) throw new NotJsonArray('the body must be a JSON array of records');
  i++;
  skip();
  if (text.charCodeAt(i) === CLOSE_SQ) {
    i++;
    skip();
    if (i !== n) throw new NotJsonArray('the body is not valid JSON');
    return { values, errors: [] };
  }
  for (;;) {
    if (values.length >= max) throw new TooManyRecords();
    const start = i;
    let depth = 0;
    // Scan one element: stop at the comma or bracket that closes it at depth 0.
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i++;
        while (i < n && text.charCodeAt(i) !== QUOTE) i += text.charCodeAt(i) === BACKSLASH ? 2 : 1;
      } else if (c === OPEN_SQ || c === OPEN_CU) depth++;
      else if (c === CLOSE_SQ || c === CLOSE_CU) {
        if (depth === 0) break;
        depth--;
      } else if (c === COMMA && depth === 0) break;
      i++;
    }
    if (i >= n) throw new NotJsonArray('the body is not valid JSON');
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start, i));
    } catch {
      throw new NotJsonArray('the body is not valid JSON');
    }
    values.push({ line: values.length + 1, value });
    if (values.length % PARSE_CHUNK === 0) await yieldToLoop();
    const c = text.charCodeAt(i);
    i++;
    if (c === CLOSE_SQ) break;
    if (c !== COMMA) throw new NotJsonArray('the body is not valid JSON');
  }
  skip();
  if (i !== n) throw new NotJsonArray('the body is not valid JSON');
  return { values, errors: [] };
}
