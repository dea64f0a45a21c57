/**
 * In-process cache of computed read answers (node-cache, useClones: false: entries are shared and
 * must not be mutated). An entry belongs to one token or to "any token" (discovery, search), and
 * is dropped exactly when that changes: every key carries a generation number that a store change
 * bumps (per changed token; the any-token generation on every token change; everything on a
 * change made by another process), so a read after an ingest never sees an answer computed before
 * it. Answers that depend on the current second (windows) put it in their key and live briefly.
 */
import NodeCache from 'node-cache';
import type { Store } from '../store/db.js';
import { PreparedJson } from './prepared-json.js';

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
   * routes whose answer depends only on the store and the query.
   */
  json<T>(scope: CacheScope, key: string, compute: () => T, ttlSeconds?: number): PreparedJson<T>;
  /** Number of live entries (for tests and metrics). */
  size(): number;
};

export type ResponseCacheOptions = { enabled?: boolean; maxKeys?: number };

export function createResponseCache(store: Store, opts: ResponseCacheOptions = {}): ResponseCache {
  const enabled = opts.enabled ?? true;
  const maxKeys = opts.maxKeys ?? 20_000;
  const cache = new NodeCache({ useClones: false, stdTTL: 30, checkperiod: 2, deleteOnExpire: true });
  const tokenGeneration = new Map<number, number>();
  let anyTokenGeneration = 0;
  let epoch = 0;

  if (enabled) {
    store.onChange((change) => {
      if (change.tokens === 'all') {
        epoch++;
        tokenGeneration.clear();
        cache.flushAll();
        return;
      }
      if (change.tokens.size === 0) return;
      anyTokenGeneration++;
      // Entries of an old generation can never be read again; their TTL frees them.
      for (const id of change.tokens) tokenGeneration.set(id, (tokenGeneration.get(id) ?? 0) + 1);
    });
  }

  return {
    enabled,
    through<T>(scope: CacheScope, key: string, compute: () => T, ttlSeconds = 30): T {
      if (!enabled) return compute();
      const full =
        scope === 'tokens'
          ? `${epoch}|*${anyTokenGeneration}|${key}`
          : `${epoch}|${scope.token}.${tokenGeneration.get(scope.token) ?? 0}|${key}`;
      const hit = cache.get<{ v: T }>(full);
      if (hit !== undefined) return hit.v;
      const v = compute();
      // A full cache answers uncached rather than growing without bound.
      if (cache.getStats().keys < maxKeys) cache.set(full, { v }, ttlSeconds);
      return v;
    },
    json(scope, key, compute, ttlSeconds) {
      return this.through(scope, `json|${key}`, () => new PreparedJson(compute()), ttlSeconds);
    },
    size: () => cache.getStats().keys,
  };
}
