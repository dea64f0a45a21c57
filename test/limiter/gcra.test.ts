/** GCRA arithmetic: exact boundaries, refill, Retry-After, and a property test against a token bucket. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gcra, rateParams, type Rate } from '../../src/limiter/gcra.js';

const S = 1_000_000; // microseconds per second
const T0 = 1_700_000_000 * S;
const rate: Rate = { limit: 5, windowSeconds: 60 };

/** Runs requests at the given times (µs) against one bucket; returns the decisions. */
function run(times: number[], r: Rate = rate) {
  let tat = 0;
  return times.map((t) => {
    const out = gcra(tat, t, r, true);
    tat = out.tat;
    return out.decision;
  });
}

describe('gcra', () => {
  it('admits exactly `limit` requests at one instant, then refuses', () => {
    const d = run([T0, T0, T0, T0, T0, T0, T0]);
    expect(d.map((x) => x.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(d.map((x) => x.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
  });

  it('reports Reset as whole seconds, rounded up, until the bucket is full again', () => {
    const d = run([T0, T0, T0 + 1, T0 + S / 2]);
    expect(d[0]!.resetSeconds).toBe(12);
    expect(d[1]!.resetSeconds).toBe(24);
    // 36 s of debt minus 1 µs elapsed: still 36 when rounded up.
    expect(d[2]!.resetSeconds).toBe(36);
    expect(d[3]!.resetSeconds).toBe(48);
  });

  it('sets Retry-After to the seconds until one more request is allowed, rounded up, at least 1', () => {
    const times = [T0, T0, T0, T0, T0, T0, T0 + 11 * S, T0 + 11 * S + 1, T0 + 12 * S - 1];
    const d = run(times);
    expect(d[5]).toMatchObject({ allowed: false, retryAfterSeconds: 12, remaining: 0, resetSeconds: 60 });
    expect(d[6]).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(d[7]).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(d[8]).toMatchObject({ allowed: false, retryAfterSeconds: 1, resetSeconds: 49 });
    expect(d.slice(0, 5).every((x) => x.retryAfterSeconds === undefined)).toBe(true);
  });

  it('regains one request every window/limit seconds, exactly at the boundary', () => {
    const d = run([T0, T0, T0, T0, T0, T0 + 12 * S - 1, T0 + 12 * S, T0 + 12 * S]);
    expect(d.map((x) => x.allowed)).toEqual([true, true, true, true, true, false, true, false]);
  });

  it('refills completely after a window of silence, never beyond the burst', () => {
    const d = run([T0, T0, T0, T0, T0, T0 + 60 * S, T0 + 3600 * S]);
    expect(d[5]).toMatchObject({ allowed: true, remaining: 4, resetSeconds: 12 });
    expect(d[6]).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('a refused request consumes nothing', () => {
    let tat = 0;
    for (let i = 0; i < 5; i++) tat = gcra(tat, T0, rate, true).tat;
    const refused = gcra(tat, T0, rate, true);
    expect(refused.decision.allowed).toBe(false);
    expect(refused.tat).toBe(tat);
  });

  it('a peek reports the bucket without changing it', () => {
    const first = gcra(0, T0, rate, true);
    const peek = gcra(first.tat, T0 + S, rate, false);
    expect(peek.tat).toBe(first.tat);
    expect(peek.decision).toMatchObject({ remaining: 4, resetSeconds: 11 });
    expect(gcra(0, T0, rate, false).decision).toMatchObject({ remaining: 5, resetSeconds: 0 });
  });

  it('is exact when the interval is not a whole number of microseconds (7 per 60 s)', () => {
    const seven = { limit: 7, windowSeconds: 60 };
    const d = run(Array(8).fill(T0), seven);
    expect(d.filter((x) => x.allowed)).toHaveLength(7);
    expect(d[6]).toMatchObject({ remaining: 0, resetSeconds: 60 });
    expect(d[7]).toMatchObject({ allowed: false, retryAfterSeconds: 9 });
  });

  it('clamps nonsense limits to one request per window rather than failing', () => {
    expect(rateParams({ limit: 0, windowSeconds: 60 })).toEqual({ limit: 1, intervalUs: 60 * S, burstUs: 60 * S });
    expect(rateParams({ limit: Number.NaN, windowSeconds: 60 }).limit).toBe(1);
  });

  it('a lowered limit (plan downgrade) never reports negative numbers', () => {
    const big = { limit: 100, windowSeconds: 60 };
    let tat = 0;
    for (let i = 0; i < 100; i++) tat = gcra(tat, T0, big, true).tat;
    const d = gcra(tat, T0, rate, true).decision;
    expect(d.allowed).toBe(false);
    expect(d.remaining).toBe(0);
    expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('agrees with a token bucket (credit in microseconds, BigInt) on any schedule', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 120 }),
        fc.array(fc.integer({ min: 0, max: 5 * S }), { maxLength: 200 }),
        (limit, windowSeconds, gaps) => {
          const r = { limit, windowSeconds };
          const { intervalUs, burstUs } = rateParams(r);
          const interval = BigInt(intervalUs);
          const burst = BigInt(burstUs);
          let credit = burst;
          let last = BigInt(T0);
          let now = T0;
          let tat = 0;
          for (const gap of gaps) {
            now += gap;
            const n = BigInt(now);
            credit = credit + (n - last) > burst ? burst : credit + (n - last);
            last = n;
            const expected = credit >= interval;
            if (expected) credit -= interval;
            const out = gcra(tat, now, r, true);
            tat = out.tat;
            if (out.decision.allowed !== expected) return false;
            if (out.decision.remaining !== Number(credit / interval)) return false;
            if (out.decision.resetSeconds !== Math.ceil(Number(burst - credit) / S)) return false;
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });
});
