/**
 * The response cache is bounded in bytes (CACHE_MAX_MB), not in entries: filled past the bound
 * with real answers, it evicts the least recently used and never holds more than the bound.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { approxBytes, createByteLru } from '../../src/read/byte-lru.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

describe('response cache bound in bytes', () => {
  it('keeps the bytes of real history answers under CACHE_MAX_MB, evicting the least recently used', async () => {
    t = makeTestApp({ env: { CACHE_MAX_MB: '1' } });
    const tok = aToken();
    const m = aMarket(tok.address);
    const trades = Array.from({ length: 3000 }, (_, i) =>
      aTrade(tok.address, { market: m.address, blockTime: NOW - 200_000 + i * 60, priceUsd: 1 + i / 1000 }),
    );
    t.ingest([tok, m, ...trades]);
    const cache = t.app.deps.cache;
    const bound = 1024 * 1024;
    expect(cache.usage().maxBytes).toBe(bound);
    // Each `to` (a minute within the bars: a later one selects the same bars) is another key;
    // each answer holds about 2830 one-minute bars (about 200 KB).
    const at = (i: number) => NOW - 30_000 - i * 60;
    let first = '';
    for (let i = 0; i < 20; i++) {
      const res = await t.http.get(`/udf/history?symbol=${tok.address}&resolution=1&countback=5000&to=${at(i)}`);
      expect(res.status).toBe(200);
      expect(res.body.t.length).toBe(2834 - i);
      if (i === 0) first = res.text;
      expect(cache.usage().bytes).toBeLessThanOrEqual(bound);
    }
    const u = cache.usage();
    expect(u.evictions).toBeGreaterThan(0);
    expect(u.bytes).toBeGreaterThan(bound / 2);
    expect(cache.size()).toBeLessThan(20);
    // An evicted answer is computed again, identical.
    const again = await t.http.get(`/udf/history?symbol=${tok.address}&resolution=1&countback=5000&to=${at(0)}`);
    expect(again.text).toBe(first);
  });

  it('evicts by least recent use, not by insertion', () => {
    const lru = createByteLru<string>(1000);
    lru.set('a', 'A', 300, 60_000);
    lru.set('b', 'B', 300, 60_000);
    expect(lru.get('a')).toBe('A'); // a is now the most recently used
    lru.set('c', 'C', 300, 60_000);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(lru.get('c')).toBe('C');
    expect(lru.bytes).toBeLessThanOrEqual(1000);
    expect(lru.evictions).toBe(1);
  });

  it('does not keep a value larger than the whole bound, and expires entries by TTL', () => {
    let now = 0;
    const lru = createByteLru<string>(1000, () => now);
    lru.set('big', 'x', 5000, 60_000);
    expect(lru.size).toBe(0);
    lru.set('a', 'A', 10, 1000);
    now = 999;
    expect(lru.get('a')).toBe('A');
    now = 1999;
    expect(lru.get('a')).toBeUndefined();
    expect(lru.bytes).toBe(0);
  });

  it('estimates at least two bytes a string character', () => {
    const s = 'é'.repeat(1000);
    expect(approxBytes(s)).toBeGreaterThanOrEqual(2000);
    expect(approxBytes([{ a: s }, { a: s }])).toBeGreaterThanOrEqual(4000);
  });
});

describe('an entry that grows after it was stored', () => {
  it('counts the growth and evicts the least recently used others to stay in bounds', () => {
    const lru = createByteLru<string>(1000, () => 0);
    lru.set('a', 'A', 200, 10_000);
    lru.set('b', 'B', 200, 10_000);
    const held = lru.bytes;
    lru.grow('b', 'B', 100);
    expect(lru.bytes).toBe(held + 100);
    lru.grow('b', 'B', 400);
    expect(lru.get('a')).toBeUndefined();
    expect(lru.get('b')).toBe('B');
    expect(lru.bytes).toBeLessThanOrEqual(1000);
    expect(lru.evictions).toBe(1);
  });

  it('ignores growth of a value no longer stored under its key', () => {
    const lru = createByteLru<string>(1000, () => 0);
    lru.set('a', 'old', 100, 10_000);
    lru.set('a', 'new', 100, 10_000);
    const held = lru.bytes;
    lru.grow('a', 'old', 500);
    expect(lru.bytes).toBe(held);
  });

  it('drops the entry itself when it outgrows the whole bound', () => {
    const lru = createByteLru<string>(1000, () => 0);
    lru.set('a', 'A', 100, 10_000);
    lru.grow('a', 'A', 2000);
    expect(lru.get('a')).toBeUndefined();
    expect(lru.bytes).toBe(0);
  });
});
