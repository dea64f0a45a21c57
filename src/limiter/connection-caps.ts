/**
 * The stream's connection caps of an instance with REDIS_URL (docs/operations.md, Many instances):
 * global through the leases of redis-connections.ts while Redis answers, this instance's own
 * count while it does not (connection caps are then per instance, as rate limits are): the
 * connections it holds in the counter, admitted or adopted, counted and added in one step, so
 * upgrades arriving together cannot pass the cap between a check and a connect. A
 * connection admitted without Redis is adopted by the counter, so it counts globally again once
 * Redis is back. Like the failover limiter, a Redis that takes longer than `timeoutMs` is treated
 * as away; an admission it makes late is given back at once.
 */
import type { ConnectionCounter } from './redis-connections.js';
import { withTimeout } from './redis-failover.js';

/** A connection admitted: `release()` when it closes (once; later calls do nothing). */
export type Lease = { release(): void };

export type ConnectionCaps = {
  /** Admits one more connection of `group` if fewer than `cap` are open: its lease, or null when the group is full. */
  admit(group: string, cap: number): Promise<Lease | null>;
};

export type ConnectionCapsOptions = {
  counter: ConnectionCounter;
  /** Whether the Redis client is connected now (node-redis: `client.isReady`). */
  ready: () => boolean;
  /** How long an admission waits for Redis before deciding alone (default 250 ms). */
  timeoutMs?: number;
};

export function createConnectionCaps(opts: ConnectionCapsOptions): ConnectionCaps {
  const { counter, ready } = opts;
  const timeoutMs = opts.timeoutMs ?? 250;
  const lease = (ticket: string): Lease => {
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        // A release Redis misses (it is away) ends with the lease, within its 60 s.
        counter.release(ticket).catch(() => undefined);
      },
    };
  };
  const alone = (group: string, cap: number): Lease | null => (counter.heldIn(group) >= cap ? null : lease(counter.adopt(group)));

  return {
    async admit(group, cap) {
      if (!ready()) return alone(group, cap);
      const asked = counter.acquire(group, cap);
      try {
        const ticket = await withTimeout(asked, timeoutMs);
        return ticket === null ? null : lease(ticket);
      } catch {
        // Decided here instead; a slot Redis grants after all is handed back.
        asked.then((late) => (late === null ? undefined : counter.release(late))).catch(() => undefined);
        return alone(group, cap);
      }
    },
  };
}
