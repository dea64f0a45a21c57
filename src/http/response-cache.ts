/**
 * In-process cache of computed read answers (entries are shared and must not be mutated), bounded
 * in bytes (CACHE_MAX_MB; docs/api.md, Response cache): the least recently used answers go first. An entry belongs to one token or to "any token" (discovery, search), and
 * is dropped exactly when that changes: every key carries a generation number that a store change
 * bumps (per changed token; the any-token generation on every token change; everything on a
 * change made by another process), so a read after an ingest never sees an answer computed before
 * it. Answers that depend on the current second (windows) put it in their key and live briefly.
 */
import type { Store } from '../store/db.js';
import { PreparedJson } from './prepared-json.js';
import { approxBytes, createByteLru } from './byte-lru.js';

/** What an entry depends on: one token's data, or the data of every token. */
export type CacheScope = { token: number } | 'tokens';

export type ResponseCache = {
  readonly enabled: boolean;
  /**
   * The value cached under `key` in `scope`, or `compute()` cached there. `ttlSeconds` bounds the
   * life of entries nobody invalidates (those keyed by the current second need only a few).
   */
  through<T>(scope: CacheScope, key: string, compute: () => T, ttlSeconds?: number): T;
  /**
   * Like `through`, for a whole JSON answer: cached serialised with its ETag (PreparedJson), for
   * routes whose answer depends only on the store and the query. Its compressed forms, made when
   * first asked for, count against the byte bound.
   */
  json<T>(scope: CacheScope, key: string, compute: () => T, ttlSeconds?: number): PreparedJson<T>;
  /** Number of live entries (for tests and metrics). */
  size(): number;
  /** Estimated bytes held (never above the bound) and entries evicted to stay under it. */
  usage(): { bytes: number; maxBytes: number; evictions: number };
};

/** `maxBytes`: the bound on what the entries hold (default 256 MB, CACHE_MAX_MB). */
export type ResponseCacheOptions = { enabled?: boolean; maxBytes?: number };

export function createResponseCache(store: Store, opts: ResponseCacheOptions = {}): ResponseCache {
  const enabled = opts.enabled ?? true;
  const maxBytes = opts.maxBytes ?? 256 * 1024 * 1024;
  const cache = createByteLru<{ v: unknown }>(maxBytes);
  const tokenGeneration = new Map<number, number>();
  let anyTokenGeneration = 0;
  let epoch = 0;

  if (enabled) {
    store.onChange((change) => {
      if (change.tokens === 'all') {
        epoch++;
        tokenGeneration.clear();
        cache.clear();
        return;
      }
      if (change.tokens.size === 0) return;
      anyTokenGeneration++;
      // Entries of an old generation can never be read again; their TTL or eviction frees them.
      for (const id of change.tokens) tokenGeneration.set(id, (tokenGeneration.get(id) ?? 0) + 1);
    });
  }

  const fullKey = (scope: CacheScope, key: string): string =>
    scope === 'tokens' ? `${epoch}|*${anyTokenGeneration}|${key}` : `${epoch}|${scope.token}.${tokenGeneration.get(scope.token) ?? 0}|${key}`;

  return {
    enabled,
    through<T>(scope: CacheScope, key: string, compute: () => T, ttlSeconds = 30): T {
      if (!enabled) return compute();
      const full = fullKey(scope, key);
      const hit = cache.get(full);
      if (hit !== undefined) return hit.v as T;
      const v = compute();
      cache.set(full, { v }, approxBytes(v) + 32, ttlSeconds * 1000);
      return v;
    },
    json<T>(scope: CacheScope, key: string, compute: () => T, ttlSeconds = 30): PreparedJson<T> {
      if (!enabled) return new PreparedJson(compute());
      const full = fullKey(scope, `json|${key}`);
      const hit = cache.get(full);
      if (hit !== undefined) return hit.v as PreparedJson<T>;
      const v = new PreparedJson(compute());
      const entry = { v };
      v.onGrow = (bytes) => cache.grow(full, entry, bytes);
      cache.set(full, entry, v.approxBytes() + 32, ttlSeconds * 1000);
      return v;
    },
    size: () => cache.size,
    usage: () => ({ bytes: cache.bytes, maxBytes, evictions: cache.evictions }),
  };
}
