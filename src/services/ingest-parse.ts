/**
 * Parsing an ingest body (docs/api.md, Ingest limits): NDJSON lines or the elements of a JSON array,
 * parsed one record at a time in chunks that yield to the event loop, and counted as they are
 * found, so a body of millions of tiny records is refused at record 100,001 before the rest is
 * parsed or even split. Nothing here holds more than the body text and the records it keeps.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { LineError } from './ingest-validator.js';

/** Records one batch (one `POST /v1/ingest`) may hold. */
export const MAX_INGEST_RECORDS = 100_000;
/**
 * Records parsed, or validated, between two yields to the event loop: a few milliseconds of work
 * even before the validator is compiled hot (the first batch of a process validated 2,000 records
 * in one 60 ms step).
 */
export const PARSE_CHUNK = 500;
/** Characters scanned between two yields, whatever the count of records (blank lines included). */
export const PARSE_CHARS = 256 * 1024;
/**
 * The longest record accepted, in characters: a valid record is under 3,000 (its longest field,
 * logoUri, is at most 2,048), so a longer one is refused without parsing it, and no single
 * JSON.parse can hold the loop for a body-sized record.
 */
export const MAX_RECORD_CHARS = 16 * 1024;
const MAX_ERRORS = 100;

/** Says when to yield: after PARSE_CHUNK items or PARSE_CHARS characters since the last time. */
function pacer(): (chars: number) => boolean {
  let items = 0;
  let chars = 0;
  return (n) => {
    chars += n;
    if (++items < PARSE_CHUNK && chars < PARSE_CHARS) return false;
    items = chars = 0;
    return true;
  };
}

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
 * Splits NDJSON text into numbered values; a line that is not JSON, or longer than
 * MAX_RECORD_CHARS (not parsed), becomes an error. Blank lines are skipped but still counted, so
 * line numbers match the caller's file. Yields every PARSE_CHUNK lines or PARSE_CHARS characters.
 * Throws TooManyRecords as soon as the count passes `max`.
 */
export async function parseNdjsonChunked(text: string, max = MAX_INGEST_RECORDS, firstLine = 1): Promise<Parsed> {
  const values: { line: number; value: unknown }[] = [];
  const errors: LineError[] = [];
  const pace = pacer();
  let records = 0;
  let line = firstLine - 1;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    line++;
    const from = start;
    start = end + 1;
    if (pace(start - from)) await yieldToLoop();
    if (end - from > MAX_RECORD_CHARS) {
      if (++records > max) throw new TooManyRecords();
      if (errors.length <= MAX_ERRORS) errors.push({ line, error: `a record has at most ${MAX_RECORD_CHARS} characters` });
      continue;
    }
    const raw = text.slice(from, end).trim();
    if (raw === '') continue;
    if (++records > max) throw new TooManyRecords();
    try {
      values.push({ line, value: JSON.parse(raw) });
    } catch {
      if (errors.length <= MAX_ERRORS) errors.push({ line, error: 'not valid JSON' });
    }
  }
  return { values, errors };
}

const [OPEN_SQ, CLOSE_SQ, OPEN_CU, CLOSE_CU, QUOTE, BACKSLASH, COMMA] = [0x5b, 0x5d, 0x7b, 0x7d, 0x22, 0x5c, 0x2c];
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The elements of a JSON array body, numbered from 1, each parsed on its own. A scan that tracks
 * strings and nesting finds where each top-level element ends; each is then given to JSON.parse,
 * which checks it fully; yields as parseNdjsonChunked. Throws NotJsonArray for a body that is not
 * one array or an element over MAX_RECORD_CHARS, TooManyRecords past `max` elements.
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
  const pace = pacer();
  for (;;) {
    if (values.length >= max) throw new TooManyRecords();
    const start = i;
    let depth = 0;
    // Scan one element: stop at the comma or bracket that closes it at depth 0.
    while (i < n) {
      if (i - start > MAX_RECORD_CHARS) throw new NotJsonArray(`element ${values.length + 1} is over ${MAX_RECORD_CHARS} characters; a record has fewer`);
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
    if (pace(i - start + 1)) await yieldToLoop();
    const c = text.charCodeAt(i);
    i++;
    if (c === CLOSE_SQ) break;
    if (c !== COMMA) throw new NotJsonArray('the body is not valid JSON');
  }
  skip();
  if (i !== n) throw new NotJsonArray('the body is not valid JSON');
  return { values, errors: [] };
}
