/**
 * The limiter of an instance with REDIS_URL (docs/operations.md, Many instances): the shared
 * buckets in Redis while Redis answers, this instance's in-memory buckets while it does not, so
 * a Redis outage degrades the limits to per instance instead of failing requests or letting them
 * through unlimited. A call is answered from memory at once when the client is not connected
 * (node-redis would otherwise queue the command until it reconnects), and when Redis takes longer
 * than `timeoutMs`; such a late script still runs in Redis, which can only count a request twice,
 * never let one through uncounted.
 */
import type { Limiter } from './limiter.js';
import type { AsyncLimiter } from './redis-gcra.js';

export type RedisState = 'up' | 'down';

export type FailoverLimiter = AsyncLimiter & {
  /** 'down' from the first call Redis failed until the next call it answers. */
  redisState(): RedisState;
};

export type FailoverOptions = {
  redis: AsyncLimiter;
  /** Whether the Redis client is connected now (node-redis: `client.isReady`). */
  ready: () => boolean;
  memory: Limiter;
  /** How long a call waits for Redis before answering from memory (default 250 ms). */
  timeoutMs?: number;
  /** Told of every change of state (for the log line and the redis_up gauge). */
  onStateChange?: (state: RedisState, err?: unknown) => void;
};

class RedisTimeout extends Error {}

/**
 * `p`, or a RedisTimeout after `ms`. The timeout waits one more turn of the event loop
 * (setImmediate runs after the loop has read its sockets): when this process was busy or
 * descheduled rather than Redis slow, the answer that arrived meanwhile wins, so a loaded
 * instance does not fall back to its own buckets for nothing.
 */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => reject(new RedisTimeout(`Redis did not answer within ${ms} ms`)));
    }, ms);
  });
  return Promise.race([p, timeout]).finally(() => {
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  });
}

export function createFailoverLimiter(opts: FailoverOptions): FailoverLimiter {
  const { redis, memory, ready } = opts;
  const timeoutMs = opts.timeoutMs ?? 250;
  let state: RedisState = 'up';
  const set = (next: RedisState, err?: unknown) => {
    if (next === state) return;
    state = next;
    opts.onStateChange?.(next, err);
  };

  async function either<T>(shared: () => Promise<T>, local: () => T): Promise<T> {
    if (!ready()) {
      set('down', new Error('Redis is not connected'));
      return local();
    }
    try {
      const answer = await withTimeout(shared(), timeoutMs);
      set('up');
      return answer;
    } catch (err) {
      set('down', err);
      return local();
    }
  }

  return {
    ip: (key, rate, consume) =>
      either(
        () => redis.ip(key, rate, consume),
        () => memory.ip(key, rate, consume),
      ),
    tenant: (id, rate, consume) =>
      either(
        () => redis.tenant(id, rate, consume),
        () => memory.tenant(id, rate, consume),
      ),
    sweep: async () => memory.sweep(),
    size: async () => memory.size(),
    ipTableBytes: async () => memory.ipTableBytes(),
    redisState: () => state,
  };
}
