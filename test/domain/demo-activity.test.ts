// The demo activity profile: a quiet past, a ramp, and the live rate over the last hours; the
// expected count is the integral of the rate, and the age lookup inverts it.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ageForTrades, flatActivity, LIVE_SECONDS, medianTradeAt, RAMP_SECONDS, rateAt, tradesWithin, type Activity } from '../../src/domain/demo-activity.js';

const busy: Activity = { base: 10 / 3600, live: 1500 / 3600, volumeRamp: 2 };
const activity = fc.record({
  base: fc.double({ min: 1e-4, max: 0.1, noNaN: true }),
  multiple: fc.double({ min: 1, max: 200, noNaN: true }),
  volumeRamp: fc.double({ min: 1, max: 3, noNaN: true }),
});
const toActivity = (a: { base: number; multiple: number; volumeRamp: number }): Activity => ({
  base: a.base,
  live: a.base * a.multiple,
  volumeRamp: a.volumeRamp,
});

/** The integral of rateAt over [0, age] by the midpoint rule (a naive reference). */
function integrate(a: Activity, age: number): number {
  const steps = 20_000;
  const h = age / steps;
  let sum = 0;
  for (let k = 0; k < steps; k++) sum += rateAt(a, (k + 0.5) * h) * h;
  return sum;
}

describe('demo activity', () => {
  it('runs at the live rate over the last hours, then falls towards the quiet rate going back', () => {
    expect(rateAt(busy, 0)).toBe(busy.live);
    expect(rateAt(busy, LIVE_SECONDS)).toBe(busy.live);
    expect(rateAt(busy, LIVE_SECONDS + RAMP_SECONDS)).toBeCloseTo(busy.base + (busy.live - busy.base) / Math.E, 12);
    expect(rateAt(busy, 30 * 86400)).toBeCloseTo(busy.base, 12);
    expect(tradesWithin(busy, 3600)).toBeCloseTo(1500, 9);
    for (let age = 0; age < 2 * 86400; age += 600) expect(rateAt(busy, age + 600)).toBeLessThanOrEqual(rateAt(busy, age));
  });

  it('counts the expected trades as the integral of the rate', () => {
    fc.assert(
      fc.property(activity, fc.double({ min: 1, max: 30 * 86400, noNaN: true }), (a, age) => {
        const act = toActivity(a);
        const exact = tradesWithin(act, age);
        expect(Math.abs(exact - integrate(act, age))).toBeLessThanOrEqual(1e-6 * exact + 1e-9);
      }),
      { numRuns: 60 },
    );
  });

  it('finds the age by which a number of trades is expected (the inverse of the count)', () => {
    fc.assert(
      fc.property(activity, fc.double({ min: 3600, max: 30 * 86400, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (a, span, share) => {
        const act = toActivity(a);
        const age = ageForTrades(act, share * tradesWithin(act, span), span);
        expect(age).toBeGreaterThanOrEqual(0);
        expect(age).toBeLessThanOrEqual(span);
        // 48 halvings of the span: off by at most the trades of span / 2^48 seconds at the live rate.
        expect(Math.abs(tradesWithin(act, age) - share * tradesWithin(act, span))).toBeLessThanOrEqual((act.live * span) / 2 ** 47 + 1e-12);
      }),
      { numRuns: 500 },
    );
  });

  it('makes the busy end many smaller trades: USD an hour grows by the volume ramp only', () => {
    const quietMedian = 3000;
    const usdPerHour = (age: number) => rateAt(busy, age) * medianTradeAt(busy, quietMedian, age);
    expect(medianTradeAt(busy, quietMedian, 30 * 86400)).toBeCloseTo(quietMedian, 6);
    expect(medianTradeAt(busy, quietMedian, 0)).toBeCloseTo((quietMedian * 10 * 2) / 1500, 9);
    expect(usdPerHour(0) / usdPerHour(30 * 86400)).toBeCloseTo(2, 6);
  });

  it('keeps a flat activity flat: one rate and one trade size all along', () => {
    const flat = flatActivity(0.01);
    for (const age of [0, LIVE_SECONDS, 86400, 30 * 86400]) {
      expect(rateAt(flat, age)).toBe(0.01);
      expect(medianTradeAt(flat, 80, age)).toBeCloseTo(80, 12);
    }
    expect(tradesWithin(flat, 86400)).toBeCloseTo(864, 9);
  });
});
