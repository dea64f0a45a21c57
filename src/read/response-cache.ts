/**
 * In-process cache of computed read answers (entries are shared and must not be mutated), bounded
 * in bytes (CACHE_MAX_MB; docs/api.md, Response cache): the least recently used answers go first. An entry belongs to one token or to "any token" (discovery, search), and
 * is dropped exactly when that changes: every key carries a generation number that a store change
 * bumps (per changed token; the any-token generation on every token change; everything on a
 * change made by another process), so a read after an ingest never sees an answer computed before
 * it. Answers that depend on the current second (windows) put it in their key and live briefly.
 */
import type { StoreHandle } from '../store/port/handle.js';
import { PreparedJson } from './prepared-json.js';
import { approxBytes, createByteLru } from './byte-lru.js';

/** What an entry depends on: one token's data, or the data of every token. */
export type CacheScope = { token: number } | 'tokens';

/**
 * A scope's generation taken at one moment (`stamp()`): an answer whose reads began after it is
 * stored under it, so a change that lands while the reads await drops that answer too.
 */
export type CacheStamp = { readonly stamp: string };

export type ResponseCache = {
  readonly enabled: boolean;
  /**
   * The value cached under `key` in `scope`, or `compute()` cached there. `ttlSeconds` bounds the
   * life of entries nobody invalidates (those keyed by the current second need only a few).
   * The scope's generation is read before `compute` starts, so an answer computed across a change
   * is stored where no later read looks; callers computing the same key at once share one compute.
   */
  through<T>(scope: CacheScope | CacheStamp, key: string, compute: () => Promise<T>, ttlSeconds?: number): Promise<T>;
  /**
   * Like `through`, for a whole JSON answer: cached serialised with its ETag (PreparedJson), for
   * routes whose answer depends only on the store and the query. Its compressed forms, made when
   * first asked for, count against the byte bound.
   */
  json<T>(scope: CacheScope | CacheStamp, key: string, compute: () => Promise<T>, ttlSeconds?: number): Promise<PreparedJson<T>>;
  /** The answer `json` holds under `key` right now, without a promise; undefined when it holds none. */
  jsonNow<T>(scope: CacheScope | CacheStamp, key: string): PreparedJson<T> | undefined;
  /**
   * The scope's generation now: for an answer whose key is known only after reads of its own
   * (a history series brought up to date), take the stamp before those reads and pass it as scope.
   */
  stamp(scope: CacheScope): CacheStamp;
  /** Number of live entries (for tests and metrics). */
  size(): number;
  /** Estimated bytes held (never above the bound) and entries evicted to stay under it. */
  usage(): { bytes: number; maxBytes: number; evictions: number };
};

/** `maxBytes`: the bound on what the entries hold (default 256 MB, CACHE_MAX_MB). */
export type ResponseCacheOptions = { enabled?: boolean; maxBytes?: number };

export function createResponseCache(store: StoreHandle, opts: ResponseCacheOptions = {}): ResponseCache {
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

  const prefix = (scope: CacheScope): string =>
    scope === 'tokens' ? `${epoch}|*${anyTokenGeneration}` : `${epoch}|${scope.token}.${tokenGeneration.get(scope.token) ?? 0}`;
  const fullKey = (scope: CacheScope | CacheStamp, key: string): string =>
    `${typeof scope === 'object' && 'stamp' in scope ? scope.stamp : prefix(scope)}|${key}`;
  /** Computes in flight, by full key: concurrent misses of one answer read the store once. */
  const pending = new Map<string, Promise<unknown>>();

  /** `compute()` stored under `full` once it resolves (the key was fixed before it began). */
  function fill<V>(full: string, compute: () => Promise<V>, store: (v: V) => void): Promise<V> {
    const running = pending.get(full);
    if (running !== undefined) return running as Promise<V>;
    const p = (async () => {
      try {
        const v = await compute();
        store(v);
        return v;
      } finally {
        pending.delete(full);
      }
    })();
    pending.set(full, p);
    return p;
  }

  return {
    enabled,
    through<T>(scope: CacheScope | CacheStamp, key: string, compute: () => Promise<T>, ttlSeconds = 30): Promise<T> {
      if (!enabled) return compute();
      const full = fullKey(scope, key);
      const hit = cache.get(full);
      if (hit !== undefined) return Promise.resolve(hit.v as T);
      return fill(full, compute, (v) => cache.set(full, { v }, approxBytes(v) + 32, ttlSeconds * 1000));
    },
    json<T>(scope: CacheScope | CacheStamp, key: string, compute: () => Promise<T>, ttlSeconds = 30): Promise<PreparedJson<T>> {
      if (!enabled) return compute().then((v) => new PreparedJson(v));
      const full = fullKey(scope, `json|${key}`);
      const hit = cache.get(full);
      if (hit !== undefined) return Promise.resolve(hit.v as PreparedJson<T>);
      return fill(
        full,
        async () => new PreparedJson(await compute()),
        (v) => {
          const entry = { v };
          v.onGrow = (bytes) => cache.grow(full, entry, bytes);
          cache.set(full, entry, v.approxBytes() + 32, ttlSeconds * 1000);
        },
      );
    },
    jsonNow<T>(scope: CacheScope | CacheStamp, key: string): PreparedJson<T> | undefined {
      if (!enabled) return undefined;
      return cache.get(fullKey(scope, `json|${key}`))?.v as PreparedJson<T> | undefined;
    },
    stamp: (scope) => ({ stamp: prefix(scope) }),
    size: () => cache.size,
    usage: () => ({ bytes: cache.bytes, maxBytes, evictions: cache.evictions }),
  };
}
