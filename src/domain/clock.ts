/** The injected clock: milliseconds since the epoch. Domain code never calls Date.now(). */
export type Clock = { now(): number };

export const systemClock: Clock = { now: () => Date.now() };

/** Whole unix seconds of a clock. */
export const nowSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);
