/**
 * The Redis half of the shared limits (docs/operations.md, Many instances), imported only with
 * REDIS_URL: one Redis connection of its own (the bus's are pub/sub and publish-only), the GCRA
 * buckets of src/limiter/redis-gcra.ts behind the failover limiter, and the stream's connection
 * leases behind the failover caps. The offline queue is off: a command is never held for a
 * reconnection, the failover answers from this instance's memory instead.
 */
import { createClient } from 'redis';
import type { Limiter } from '../limiter/limiter.js';
import { createRedisLimiter } from '../limiter/redis-gcra.js';
import { createFailoverLimiter, type FailoverLimiter, type RedisState } from '../limiter/redis-failover.js';
import { createRedisConnectionCounter } from '../limiter/redis-connections.js';
import { createConnectionCaps, type ConnectionCaps } from '../limiter/connection-caps.js';

export type RedisLimitsOptions = {
  url: string;
  instanceId: string;
  /** A failover limiter changed state; `connected` tells a slow or failing Redis from an absent one. */
  onLimiterState: (state: RedisState, err: unknown, connected: boolean) => void;
};

export type RedisLimits = {
  /** Buckets under `prefix` in Redis, `memory`'s while Redis does not answer. */
  limiter(memory: Limiter, prefix: string): FailoverLimiter;
  caps: ConnectionCaps;
  /** Whether the connection is up. */
  ready(): boolean;
  close(): Promise<void>;
};

export function createRedisLimits(opts: RedisLimitsOptions): RedisLimits {
  const client = createClient({ url: opts.url, socket: { reconnectStrategy: () => 500, connectTimeout: 2000 }, disableOfflineQueue: true });
  client.on('error', () => undefined);
  // Keeps trying through the client's reconnection while Redis is away at start.
  client.connect().catch(() => undefined);
  const ready = () => client.isReady;
  const counter = createRedisConnectionCounter({ client, instanceId: opts.instanceId, prefix: 'conn:' });
  return {
    limiter: (memory, prefix) =>
      createFailoverLimiter({
        redis: createRedisLimiter({ client, prefix }),
        ready,
        memory,
        onStateChange: (state, err) => opts.onLimiterState(state, err, ready()),
      }),
    caps: createConnectionCaps({ counter, ready }),
    ready,
    async close() {
      counter.stop();
      // A connection still being attempted never settles while Redis is away: destroyed, not awaited.
      if (client.isReady) await client.close().catch(() => client.destroy());
      else if (client.isOpen) client.destroy();
    },
  };
}
