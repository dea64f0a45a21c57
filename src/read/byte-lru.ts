/**
 * A least-recently-used map bounded by bytes, not entries (docs/api.md, Response cache): one answer
 * may be 650 KB and another 50 bytes, so a count says nothing about memory. Sizes are estimates
 * of what V8 keeps (see approxBytes); entries also expire after their TTL.
 */

type Entry<V> = { value: V; bytes: number; expiresAt: number };

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

export function createByteLru<V>(maxBytes: number, now: () => number = Date.now): ByteLru<V> {
  // A Map iterates in insertion order: re-inserting on every hit keeps the oldest use first.
  const map = new Map<string, Entry<V>>();
  /**
   * The entry inserted last, so the most recently used: a hit on it is not re-inserted. A Map
   * keeps deleted slots until it rehashes, so a delete and set on every hit of a hot answer
   * made it rebuild its table every few hits (most often when it held few entries).
   */
  let newest: Entry<V> | undefined;
  let bytes = 0;
  let evictions = 0;

  const remove = (key: string, e: Entry<V>) => {
    map.delete(key);
    bytes -= e.bytes;
  };

  return {
    get(key) {
      const e = map.get(key);
      if (e === undefined) return undefined;
      if (e.expiresAt <= now()) {
        remove(key, e);
        return undefined;
      }
      if (e !== newest) {
        map.delete(key);
        map.set(key, e);
        newest = e;
      }
      return e.value;
    },
    set(key, value, size, ttlMs) {
      const total = size + 2 * key.length + 64;
      const old = map.get(key);
      if (old !== undefined) remove(key, old);
      // An answer larger than the whole cache is not kept (it would evict everything for nothing).
      if (total > maxBytes) return;
      const t = now();
      for (const [k, e] of map) {
        if (bytes + total <= maxBytes && e.expiresAt > t) break;
        remove(k, e);
        if (e.expiresAt > t) evictions++;
      }
      newest = { value, bytes: total, expiresAt: t + ttlMs };
      map.set(key, newest);
      bytes += total;
    },
    grow(key, value, extra) {
      const e = map.get(key);
      if (e === undefined || e.value !== value) return;
      e.bytes += extra;
      bytes += extra;
      for (const [k, other] of map) {
        if (bytes <= maxBytes) break;
        if (other === e) continue;
        remove(k, other);
        evictions++;
      }
      if (bytes > maxBytes) remove(key, e);
    },
    clear() {
      map.clear();
      newest = undefined;
      bytes = 0;
    },
    get size() {
      return map.size;
    },
    get bytes() {
      return bytes;
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
