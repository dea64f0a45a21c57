/**
 * A large ingest body never holds the event loop in one piece (docs/api.md, Ingest limits): parsing
 * and validation yield every PARSE_CHUNK records or PARSE_CHARS characters, and a body-sized record
 * is refused unparsed. Pinned by counting the turns another task gets while the work runs, not by
 * timing it. (SQLite's sliced write, which must yield on one connection, is pinned in
 * sqlite-sliced-write.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { turnsDuring } from '../helpers/loop-turns.js';
import { MAX_RECORD_CHARS, NotJsonArray, PARSE_CHARS, PARSE_CHUNK, parseJsonArrayChunked, parseNdjsonChunked } from '../../src/services/ingest-parse.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('ingest body parsing yields', () => {
  it('every PARSE_CHUNK lines of NDJSON, blank lines included', async () => {
    const records = await turnsDuring(() => parseNdjsonChunked('{"a":1}\n'.repeat(4 * PARSE_CHUNK)));
    expect(records.result.values).toHaveLength(4 * PARSE_CHUNK);
    expect(records.turns).toBeGreaterThanOrEqual(4 - 1);
    const blank = await turnsDuring(() => parseNdjsonChunked('\n'.repeat(10 * PARSE_CHUNK)));
    expect(blank.result.values).toHaveLength(0);
    expect(blank.turns).toBeGreaterThanOrEqual(10 - 1);
  });

  it('every PARSE_CHARS characters, however few the records', async () => {
    const line = JSON.stringify({ pad: 'x'.repeat(MAX_RECORD_CHARS - 20) });
    const n = Math.ceil((6 * PARSE_CHARS) / line.length);
    const ndjson = await turnsDuring(() => parseNdjsonChunked(`${line}\n`.repeat(n)));
    expect(ndjson.result.values).toHaveLength(n);
    expect(ndjson.turns).toBeGreaterThanOrEqual(6 - 1);
    const array = await turnsDuring(() => parseJsonArrayChunked(`[${Array.from({ length: n }, () => line).join(',')}]`));
    expect(array.result.values).toHaveLength(n);
    expect(array.turns).toBeGreaterThanOrEqual(6 - 1);
  });

  it('refuses a record over MAX_RECORD_CHARS without parsing it', async () => {
    const huge = `{"a":[${'1,'.repeat(MAX_RECORD_CHARS)}1]}`;
    const { values, errors } = await parseNdjsonChunked(`{}\n${huge}\n{}\n`);
    expect(values.map((v) => v.line)).toEqual([1, 3]);
    expect(errors).toEqual([{ line: 2, error: `a record has at most ${MAX_RECORD_CHARS} characters` }]);
    await expect(parseJsonArrayChunked(`[{},${huge}]`)).rejects.toThrow(
      new NotJsonArray(`element 2 is over ${MAX_RECORD_CHARS} characters; a record has fewer`),
    );
  });

  it('validation yields every PARSE_CHUNK records', async () => {
    t = makeTestApp();
    const tok = aToken();
    await t.ingest(withMarket(tok));
    const values = Array.from({ length: 5 * PARSE_CHUNK }, (_, i) => ({ line: i + 1, value: aTrade(tok.address) }));
    const { result, turns } = await turnsDuring(() => t!.services.ingest.validate(values));
    expect(result).toHaveLength(5 * PARSE_CHUNK);
    expect(turns).toBeGreaterThanOrEqual(5 - 1);
  });
});
