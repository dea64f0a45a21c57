/**
 * GET /healthz (docs/api.md, Operations): the instance, its store's kind and state, and Redis's,
 * for people and load balancers. Not counted by the limiter.
 *
 * `{"status","instance","store":{"kind","state"},"redis"}`: status is "down" (503) when the
 * store does not answer, "degraded" (200) when Redis is configured but down or the store is
 * full, else "ok" (200). A load balancer keeps a degraded instance: it answers correctly, only
 * without shared caches (Redis down) or without room for writes (full, shared by every instance).
 *
 * A full store (a full disk, or SQLite's max_page_count reached) shows as `"full": true` in
 * `store`, because reads still work there but every write answers 507 (docs/api.md,
 * Conventions). It counts as full while its pages are all used (PRAGMA page_count at
 * max_page_count with no free page), or after a write failed with SQLITE_FULL until a later write
 * succeeds (a full disk shows only that way).
 */
import { ApiRouter } from './route.js';
import type { Store } from '../store/db.js';
import { createStatsRepo } from '../store/stats-repo.js';
import type { AppDeps } from './types.js';
import type { RedisState } from '../coord/wiring.js';

/** Records that a write to `store` failed because it is full (the error handler calls this). */
export function markStoreFull(store: Store): void {
  store.full = true;
}

/** Records that a write to `store` succeeded, so it has room again. */
export function markStoreWritable(store: Store): void {
  store.full = false;
}

export type Health = {
  status: 'ok' | 'degraded' | 'down';
  instance: string;
  store: { kind: 'sqlite' | 'postgres'; state: 'up' | 'down'; full?: true };
  redis: RedisState;
};

export function healthRouter(deps: AppDeps): ApiRouter {
  const { store } = deps;
  const stats = createStatsRepo(store.db);
  // DATABASE_URL names the store kind (docs/operations.md, Many instances).
  const kind = deps.config.databaseUrl === null ? 'sqlite' : 'postgres';
  const answers = (): boolean => {
    try {
      return store.db.open && stats.answers();
    } catch {
      return false;
    }
  };
  const isFull = (): boolean => {
    try {
      return store.full || stats.atPageLimit();
    } catch {
      return store.full;
    }
  };
  return new ApiRouter().add(
    { method: 'get', path: '/healthz', summary: 'The instance, its store and Redis (503 when the store is down)', access: 'internal', tag: 'operations' },
    (_input, ctx): Health => {
      ctx.set('Cache-Control', 'no-store');
      const redis = deps.coord.redis();
      const up = answers();
      const full = up && isFull();
      const status = !up ? 'down' : full || redis === 'down' ? 'degraded' : 'ok';
      if (!up) ctx.status = 503;
      return { status, instance: deps.config.instanceId, store: { kind, state: up ? 'up' : 'down', ...(full ? { full: true as const } : {}) }, redis };
    },
  );
}
