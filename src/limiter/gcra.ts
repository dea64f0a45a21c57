/**
 * GCRA (the generic cell rate algorithm): a token bucket held as ONE number per bucket, the
 * theoretical arrival time (TAT) of the next request if the caller sent at exactly the allowed
 * rate. Burst = limit; one request is regained every window/limit. A TAT at or before `now` means
 * a full bucket, so a missing bucket and an expired one are the same thing (which is what lets the
 * tables drop idle buckets without changing any answer).
 *
 * Times are whole microseconds since the epoch (exact integers in a double until year 2255). The
 * emission interval is floored to a whole microsecond (at least 1), so every comparison below is
 * exact integer arithmetic and the bucket never takes longer than the window to refill.
 */

/** A limit: `limit` requests per `windowSeconds`. */
export type Rate = { limit: number; windowSeconds: number };

/** The limiter's answer; `retryAfterSeconds` is set only when the request was refused. */
export type Decision = {
  allowed: boolean;
  limit: number;
  windowSeconds: number;
  /** Whole requests left after this one (never negative). */
  remaining: number;
  /** Whole seconds, rounded up, until the bucket is full again (never negative). */
  resetSeconds: number;
  /** Whole seconds, at least 1, until one more request would be allowed. */
  retryAfterSeconds?: number;
};

const US_PER_S = 1_000_000;

/** The rate's parameters in microseconds; a limit below 1 is treated as 1. */
export function rateParams(rate: Rate): { limit: number; intervalUs: number; burstUs: number } {
  const limit = Number.isFinite(rate.limit) && rate.limit >= 1 ? Math.floor(rate.limit) : 1;
  const windowUs = Math.max(1, Math.round(rate.windowSeconds * US_PER_S));
  const intervalUs = Math.max(1, Math.floor(windowUs / limit));
  return { limit, intervalUs, burstUs: intervalUs * limit };
}

/** The clock's milliseconds as whole microseconds. */
export const toMicros = (ms: number): number => Math.round(ms * 1000);

/**
 * One request against a bucket whose TAT is `tat` (0 for a missing bucket). Returns the decision
 * and the TAT to store: unchanged when refused (a refused request consumes nothing) or when
 * `consume` is false (a peek).
 */
export function gcra(tat: number, nowUs: number, rate: Rate, consume: boolean): { decision: Decision; tat: number } {
  const { limit, intervalUs, burstUs } = rateParams(rate);
  const base = Math.max(tat, nowUs);
  const answer = (allowed: boolean, storedTat: number, retryAfterSeconds?: number) => {
    const ahead = storedTat > nowUs ? storedTat - nowUs : 0;
    const decision: Decision = {
      allowed,
      limit,
      windowSeconds: rate.windowSeconds,
      remaining: Math.max(0, Math.floor((burstUs - ahead) / intervalUs)),
      resetSeconds: Math.ceil(ahead / US_PER_S),
    };
    if (retryAfterSeconds !== undefined) decision.retryAfterSeconds = retryAfterSeconds;
    return { decision, tat: storedTat };
  };
  if (!consume) return answer(true, tat);
  const next = base + intervalUs;
  if (next - nowUs <= burstUs) return answer(true, next);
  // The earliest time at which `next - t <= burstUs` holds.
  const waitUs = next - burstUs - nowUs;
  return answer(false, tat, Math.max(1, Math.ceil(waitUs / US_PER_S)));
}
