/** The typed-array IP table: lookups against a Map reference, growth, reclamation of idle buckets. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IpTable } from '../../src/limiter/ip-table.js';
import { ipKeyFromBytes, UNKNOWN_IP_KEY } from '../../src/limiter/ip-key.js';

const NOW = 1_000_000;

describe('IpTable', () => {
  it('returns 0 (a full bucket) for a key it never saw', () => {
    expect(new IpTable(1).get(123, 1 << 24)).toBe(0);
  });

  it('keeps every bucket through many growths', () => {
    const table = new IpTable(7);
    for (let i = 0; i < 50_000; i++) table.set(i, 2 << 24, NOW + 1 + i, NOW);
    expect(table.size).toBe(50_000);
    expect(table.capacity).toBeGreaterThanOrEqual(100_000);
    let wrong = 0;
    for (let i = 0; i < 50_000; i++) if (table.get(i, 2 << 24) !== NOW + 1 + i) wrong++;
    expect(wrong).toBe(0);
  });

  it('agrees with a Map on any sequence of writes, colliding seeds included', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: NOW + 1, max: NOW + 1e6 })), { maxLength: 400 }),
        (seed, writes) => {
          const table = new IpTable(seed);
          const ref = new Map<string, number>();
          for (const [hi, tag, tat] of writes) {
            table.set(hi, tag << 24, tat, NOW);
            ref.set(`${hi}/${tag}`, tat);
          }
          if (table.size !== ref.size) return false;
          for (let hi = 0; hi <= 40; hi++) for (let tag = 1; tag <= 3; tag++) if (table.get(hi, tag << 24) !== (ref.get(`${hi}/${tag}`) ?? 0)) return false;
          return true;
        },
      ),
    );
  });

  it('sweep drops buckets whose TAT has passed and keeps the others', () => {
    const table = new IpTable(3);
    for (let i = 0; i < 1000; i++) table.set(i, 2 << 24, i < 900 ? NOW + 10 : NOW + 1000, NOW);
    table.sweep(NOW + 10);
    expect(table.size).toBe(100);
    for (let i = 900; i < 1000; i++) expect(table.get(i, 2 << 24)).toBe(NOW + 1000);
    expect(table.get(5, 2 << 24)).toBe(0);
  });

  it('shrinks back after a crowd of clients goes idle', () => {
    const table = new IpTable(3);
    for (let i = 0; i < 100_000; i++) table.set(i, 2 << 24, NOW + 10, NOW);
    const grown = table.bytes;
    table.sweep(NOW + 10);
    expect(table.size).toBe(0);
    expect(table.bytes).toBeLessThan(grown / 50);
  });

  it('reclaims idle buckets instead of growing when the table fills', () => {
    const table = new IpTable(3);
    const cap = table.capacity;
    // Fill to the load limit with buckets that are idle by the time the next one arrives.
    for (let i = 0; i < cap / 2; i++) table.set(i, 2 << 24, NOW + 1, NOW);
    table.set(99_999, 2 << 24, NOW + 100, NOW + 50);
    expect(table.capacity).toBe(cap);
    expect(table.size).toBe(1);
  });
});

describe('ipKeyFromBytes', () => {
  it('keeps IPv4 and IPv6 apart even when their bits agree, and never yields an empty-slot key', () => {
    const v4 = ipKeyFromBytes([1, 2, 3, 4]);
    const v6 = ipKeyFromBytes([1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(v4.hi).toBe(v6.hi);
    expect(v4.lo).not.toBe(v6.lo);
    expect([v4.lo, v6.lo, UNKNOWN_IP_KEY.lo].every((lo) => lo !== 0)).toBe(true);
  });

  it('uses the first 56 bits of an IPv6 address and nothing after', () => {
    const a = ipKeyFromBytes([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0x12, 0xff, 1, 2, 3, 4, 5, 6, 7, 8]);
    const b = ipKeyFromBytes([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0x12, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]);
    const c = ipKeyFromBytes([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0x13, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });
});
