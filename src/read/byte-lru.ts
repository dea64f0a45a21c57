/**
 * A least-recently-used map bounded by bytes, not entries (docs/api.md, Response cache): one answer
 * may be 650 KB and another 50 bytes, so a count says nothing about memory. Sizes are estimates
 * of what V8 keeps (see approxBytes); entries also expire after their TTL. The bookkeeping is
 * lru-cache's (`maxSize` with a size per entry, a TTL per entry; docs/architecture.md, Caches says
 * why that library); this file adds what it lacks: an entry that grows after it was stored.
 */
import { LRUCache } from 'lru-cache';

export type ByteLru<V> = {
  get(key: string): V | undefined;
  /** Stores `value`, evicting the least recently used entries until the total fits. */
  set(key: string, value: V, bytes: number, ttlMs: number): void;
  /**
   * Adds `extra` bytes to the entry under `key` if it still holds `value` (an entry that grew
   * after it was stored: an answer's compressed forms), evicting others to stay in bounds.
   */
  grow(key: string, value: V, extra: number): void;
  clear(): void;
  readonly size: number;
  /** Bytes held now (keys included). */
  readonly bytes: number;
  /** Entries evicted to make room since creation. */
  readonly evictions: number;
};

/** What a key and an entry's bookkeeping hold besides the value (a UTF-16 key, slots, a TTL). */
const keyBytes = (key: string): number => 2 * key.length + 64;
/** lru-cache takes whole positive sizes; the estimates are whole already except a caller's own. */
const whole = (n: number): number => Math.max(1, Math.ceil(n));

/** `V` is never undefined: lru-cache reads a stored undefined as a delete. */
export function createByteLru<V extends NonNullable<unknown>>(maxBytes: number, now?: () => number): ByteLru<V> {
  let evictions = 0;
  const lru = new LRUCache<string, V>({
    maxSize: maxBytes,
    // Read the clock on every check rather than lru-cache's default of once a millisecond, which
    // arms a timer to forget the reading: one clock read is cheaper than one timer, and an
    // injected clock (tests) is then read exactly when asked.
    ttlResolution: 0,
    // lru-cache takes a start time of 0 for "no TTL": an injected clock (tests start theirs at 0)
    // is read one millisecond on, which changes no age.
    ...(now === undefined ? {} : { perf: { now: () => now() + 1 } }),
    // Only entries pushed out for room count (an expired one found by a read leaves as 'expire').
    dispose: (_value, _key, reason) => {
      if (reason === 'evict') evictions++;
    },
  });
  return {
    get: (key) => lru.get(key),
    set(key, value, bytes, ttlMs) {
      // An answer larger than the whole cache is not kept (lru-cache's maxEntrySize is maxSize):
      // it would evict everything for nothing.
      lru.set(key, value, { size: whole(bytes + keyBytes(key)), ttl: whole(ttlMs) });
    },
    grow(key, value, extra) {
      // peek, not info alone: it also answers undefined for an entry that has expired.
      if (lru.peek(key) !== value) return;
      const held = lru.info(key);
      if (held?.size === undefined) return;
      // lru-cache resizes an entry only when its value changes: the entry is stored again, its
      // TTL running on. lru-cache evicts others to make room, and does not keep the entry once
      // it outgrows the whole bound.
      lru.delete(key);
      lru.set(key, value, { size: whole(held.size + extra), ...(held.ttl === undefined ? {} : { ttl: whole(held.ttl) }) });
    },
    clear: () => lru.clear(),
    get size() {
      return lru.size;
    },
    get bytes() {
      return lru.calculatedSize;
    },
    get evictions() {
      return evictions;
    },
  };
}

/**
 * An upper estimate of the heap bytes a JSON-like value holds: two bytes a string character (V8
 * stores a string with any character above U+00FF in two bytes each), 16 a number, plus object
 * and array overheads. Walks the value once; a cached value was just computed at greater cost.
 */
export function approxBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return 2 * value.length + 24;
    case 'number':
    case 'boolean':
    case 'undefined':
    case 'bigint':
      return 16;
    case 'object': {
      if (value === null) return 8;
      const sized = value as { approxBytes?: () => number };
      if (typeof sized.approxBytes === 'function') return sized.approxBytes();
      if (Array.isArray(value)) {
        let n = 32 + 8 * value.length;
        for (const v of value) n += approxBytes(v);
        return n;
      }
      if (value instanceof Map) {
        let n = 64;
        for (const [k, v] of value) n += 32 + approxBytes(k) + approxBytes(v);
        return n;
      }
      let n = 32;
      for (const k in value) n += 16 + approxBytes((value as Record<string, unknown>)[k]);
      return n;
    }
    default:
      return 16;
  }
}
