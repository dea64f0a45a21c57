/** The limiter over its two tables: separate buckets, peeks, time-driven reclamation, memory. */
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/limiter/limiter.js';
import { ipKeyFromBytes } from '../../src/limiter/ip-key.js';
import { fakeClock } from '../helpers/make-test-app.js';

const anon = { limit: 3, windowSeconds: 60 };
const ipA = ipKeyFromBytes([203, 0, 113, 7]);
const ipB = ipKeyFromBytes([203, 0, 113, 8]);

describe('createLimiter', () => {
  it('keeps one bucket per IP and one per tenant, independent of each other', () => {
    const limiter = createLimiter({ clock: fakeClock(), seed: 1 });
    for (let i = 0; i < 3; i++) expect(limiter.ip(ipA, anon, true).allowed).toBe(true);
    expect(limiter.ip(ipA, anon, true).allowed).toBe(false);
    expect(limiter.ip(ipB, anon, true)).toMatchObject({ allowed: true, remaining: 2 });
    expect(limiter.tenant('t1', anon, true)).toMatchObject({ allowed: true, remaining: 2 });
    expect(limiter.tenant('t2', anon, true)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('a peek neither counts nor creates a bucket', () => {
    const limiter = createLimiter({ clock: fakeClock(), seed: 1 });
    for (let i = 0; i < 10; i++) expect(limiter.ip(ipA, anon, false)).toMatchObject({ remaining: 3, resetSeconds: 0 });
    expect(limiter.tenant('t', anon, false).remaining).toBe(3);
    expect(limiter.size()).toEqual({ ips: 0, tenants: 0 });
  });

  it('reclaims idle buckets on its own once the sweep interval has passed', () => {
    const clock = fakeClock();
    const limiter = createLimiter({ clock, seed: 1, sweepEveryMs: 60_000 });
    for (let i = 0; i < 2000; i++) limiter.ip(ipKeyFromBytes([10, 0, i >> 8, i & 0xff]), anon, true);
    limiter.tenant('t', anon, true);
    expect(limiter.size()).toEqual({ ips: 2000, tenants: 1 });
    clock.advance(20_000); // each bucket is full again after 20 s
    limiter.ip(ipA, anon, true);
    expect(limiter.size().ips).toBe(2001);
    clock.advance(40_000);
    limiter.ip(ipA, anon, true);
    expect(limiter.size()).toEqual({ ips: 1, tenants: 0 });
  });

  it('a reclaimed bucket answers exactly as the idle one would have', () => {
    const clock = fakeClock();
    const limiter = createLimiter({ clock, seed: 1 });
    limiter.ip(ipA, anon, true);
    clock.advance(25_000);
    limiter.sweep();
    expect(limiter.size().ips).toBe(0);
    expect(limiter.ip(ipA, anon, true)).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 20 });
  });

  it('holds one million IP buckets in well under 150 bytes each', () => {
    const limiter = createLimiter({ clock: fakeClock(), seed: 1 });
    for (let i = 0; i < 1_000_000; i++) limiter.ip(ipKeyFromBytes([11, i >> 16, (i >> 8) & 0xff, i & 0xff]), anon, true);
    expect(limiter.size().ips).toBe(1_000_000);
    // The typed arrays are the whole per-bucket cost (bench/limiter-memory.ts measures the heap too).
    expect(limiter.ipTableBytes() / 1_000_000).toBeLessThan(40);
  });
});
