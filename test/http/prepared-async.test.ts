/**
 * A large prepared answer is compressed on the thread pool, not on the event loop (docs/api.md,
 * Limits): the loop keeps turning while its form is made, two requests share one compression,
 * and the bytes are the answer's.
 */
import { describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ASYNC_COMPRESS_BYTES, PreparedJson } from '../../src/read/prepared-json.js';
import { turnsDuring } from '../helpers/loop-turns.js';

describe('PreparedJson.encodedAsync', () => {
  it('makes a large form off the loop, once for concurrent callers, counted once', async () => {
    const bars = Array.from({ length: 5000 }, (_, i) => ({ t: 1_700_000_000 + i, o: i / 7, h: i / 3, l: i / 11, c: i / 5, v: i * 13.1 }));
    const answer = new PreparedJson({ bars });
    expect(answer.size).toBeGreaterThan(ASYNC_COMPRESS_BYTES);
    const grown: number[] = [];
    answer.onGrow = (n) => grown.push(n);
    const {
      result: [a, b],
      turns,
    } = await turnsDuring(() => Promise.all([answer.encodedAsync('br'), answer.encodedAsync('br')]));
    expect(a).not.toBeNull();
    expect(b).toBe(a);
    expect(turns).toBeGreaterThan(0);
    expect(brotliDecompressSync(a!).toString()).toBe(answer.json);
    expect(answer.encoded('br')).toBe(a);
    expect(grown).toEqual([a!.length + 64]);
    expect(gunzipSync((await answer.encodedAsync('gzip'))!).toString()).toBe(answer.json);
  });

  it('makes a small form at once, as encoded does', async () => {
    const answer = new PreparedJson({ text: 'x'.repeat(4000) });
    expect(answer.size).toBeLessThan(ASYNC_COMPRESS_BYTES);
    const form = await answer.encodedAsync('gzip');
    expect(form).toBe(answer.encoded('gzip'));
  });
});
