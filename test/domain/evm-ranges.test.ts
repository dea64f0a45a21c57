/**
 * Adaptive log ranges and retry backoff (src/domain/evm-ranges.ts), docs/indexer.md, RPC cost
 * and faults.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { answered, backoffMs, GROW_AFTER, initialRange, MAX_BACKOFF_MS, nextRange, parseRetryAfter, refused } from '../../src/domain/evm-ranges.js';

describe('ranges', () => {
  it('halves a refused span down to one block, and grows it back after successes', () => {
    let s = initialRange(2000);
    expect(nextRange(s, 100, 10_000)).toEqual({ from: 100, to: 2099 });
    for (let i = 0; i < 20; i++) s = refused(s);
    expect(s.span).toBe(1);
    s = refused(initialRange(2000));
    expect(s.span).toBe(1000);
    for (let i = 0; i < GROW_AFTER; i++) s = answered(s);
    expect(s.span).toBe(2000);
    for (let i = 0; i < 3 * GROW_AFTER; i++) s = answered(s);
    expect(s.span).toBe(2000);
  });
  it('never passes the target', () => {
    expect(nextRange(initialRange(2000), 5, 7)).toEqual({ from: 5, to: 7 });
    expect(nextRange(initialRange(2000), 8, 7)).toBeNull();
  });
  it('keeps 1 <= span <= max through any sequence of answers and refusals', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.array(fc.boolean(), { maxLength: 200 }), (max, steps) => {
        let s = initialRange(max);
        for (const ok of steps) {
          s = ok ? answered(s) : refused(s);
          if (s.span < 1 || s.span > max) return false;
        }
        return true;
      }),
    );
  });
});

describe('backoff', () => {
  it('doubles from 250 ms up to 60 s', () => {
    expect([0, 1, 2, 3].map((n) => backoffMs(n))).toEqual([250, 500, 1000, 2000]);
    expect(backoffMs(100)).toBe(MAX_BACKOFF_MS);
  });
  it('waits at least a Retry-After, at most 60 s', () => {
    expect(backoffMs(0, 3000)).toBe(3000);
    expect(backoffMs(5, 1000)).toBe(8000);
    expect(backoffMs(0, 3_600_000)).toBe(MAX_BACKOFF_MS);
  });
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter('0.5', 0)).toBe(500);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:10 GMT', 4000)).toBe(6000);
    expect(parseRetryAfter('soon', 0)).toBeNull();
    expect(parseRetryAfter(null, 0)).toBeNull();
  });
});
