/**
 * How busy a demo token is over time. A token trades at its quiet (base) rate through most of
 * the history, and its activity grows towards the end: over the last LIVE_SECONDS it trades at
 * its live rate, the rate the demo feed keeps after loading, so nothing jumps at the load second.
 * Going back from there the excess over the base rate decays exponentially (RAMP_SECONDS).
 * The USD volume per hour grows far less than the trade count (by the token's volume ramp): the
 * busy end is many small trades, so the newest volume bars do not tower over the rest.
 * A dense end on a sparse past is what keeps a feed of a few trades a second from needing
 * millions of trades of history. README, Demo data.
 */

/** Rates in trades per second; `volumeRamp` is how much more USD an hour trades at the end. */
export type Activity = { base: number; live: number; volumeRamp: number };

/** The last seconds of the history that run at the live rate. */
export const LIVE_SECONDS = 3 * 3600;
/** Time constant of the ramp from the base rate up to the live rate. */
export const RAMP_SECONDS = 4 * 3600;

/** A flat activity: the same rate and trade size all along (for sets sized by a trade count). */
export const flatActivity = (perSecond: number): Activity => ({ base: perSecond, live: perSecond, volumeRamp: 1 });

/** The share (0..1) of the way from quiet to live at `age` seconds before the end. */
export function liveShare(age: number): number {
  return age <= LIVE_SECONDS ? 1 : Math.exp(-(age - LIVE_SECONDS) / RAMP_SECONDS);
}

/** Trades per second at `age` seconds before the end of the history. */
export function rateAt(a: Activity, age: number): number {
  return a.base + (a.live - a.base) * liveShare(age);
}

/** Expected trades within the last `age` seconds of the history (the integral of `rateAt`). */
export function tradesWithin(a: Activity, age: number): number {
  const ramped = age <= LIVE_SECONDS ? age : LIVE_SECONDS + RAMP_SECONDS * (1 - Math.exp(-(age - LIVE_SECONDS) / RAMP_SECONDS));
  return a.base * age + (a.live - a.base) * ramped;
}

/**
 * The age (seconds before the end, within `[0, span]`) by which `expected` trades are expected:
 * the inverse of `tradesWithin`, by bisection (it is increasing): within `span` / 2^48 seconds.
 */
export function ageForTrades(a: Activity, expected: number, span: number): number {
  let lo = 0;
  let hi = span;
  for (let k = 0; k < 48; k++) {
    const mid = (lo + hi) / 2;
    if (tradesWithin(a, mid) < expected) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * The median trade value at `age`, given the median in the quiet past: USD volume per hour
 * grows from 1 to `volumeRamp` times the quiet one while the count grows from `base` to `live`.
 */
export function medianTradeAt(a: Activity, quietMedianUsd: number, age: number): number {
  const volume = 1 + (a.volumeRamp - 1) * liveShare(age);
  return (quietMedianUsd * a.base * volume) / rateAt(a, age);
}
