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
 * max_page_count with no free page), or after a write failed with SQLITE_FULL or PostgreSQL's
 * disk_full (SQLSTATE 53100) until a later write succeeds (a full disk shows only that way).
 */
import { ApiRouter } from './route.js';
import type { StoreHandle, StoreKind } from '../store/port/handle.js';
import type { Config } from '../config.js';
import type { Services } from '../services/index.js';
import type { Coord, RedisState } from '../coord/wiring.js';
import type { IndexerStatus } from '../indexer/evm/run.js';

/** Records that a write to `store` failed because it is full (the error handler calls this). */
export function markStoreFull(store: Pick<StoreHandle, 'full'>): void {
  store.full = true;
}

/** Records that a write to `store` succeeded, so it has room again. */
export function markStoreWritable(store: Pick<StoreHandle, 'full'>): void {
  store.full = false;
}

export type Health = {
  status: 'ok' | 'degraded' | 'down';
  instance: string;
  store: { kind: StoreKind; state: 'up' | 'down'; full?: true };
  redis: RedisState;
  /** With INDEXER_CONFIG: each chain's indexer (docs/indexer.md, Seeing it); a stopped one degrades the status. */
  indexers?: IndexerStatus[];
};

export function healthRouter(deps: {
  config: Config;
  store: StoreHandle;
  services: Pick<Services, 'repos' | 'indexers'>;
  coord: Pick<Coord, 'redis'>;
}): ApiRouter {
  const { store } = deps;
  const { stats } = deps.services.repos;
  // One query through the storage boundary: SQLite's one connection, or a pool connection of
  // PostgreSQL (a database that cannot be reached fails it within the pool's 3 s connect bound).
  const answers = async (): Promise<boolean> => {
    try {
      return store.isOpen() && (await stats.answers());
    } catch {
      return false;
    }
  };
  const isFull = async (): Promise<boolean> => {
    try {
      return store.full || (await stats.atPageLimit());
    } catch {
      return store.full;
    }
  };
  return new ApiRouter().add(
    { method: 'get', path: '/healthz', summary: 'The instance, its store and Redis (503 when the store is down)', access: 'internal', tag: 'operations' },
    async (_input, ctx): Promise<Health> => {
      ctx.set('Cache-Control', 'no-store');
      const redis = deps.coord.redis();
      const up = await answers();
      const full = up && (await isFull());
      const indexers = up ? await deps.services.indexers.status().catch(() => null) : null;
      const stopped = indexers?.some((i) => i.state === 'stopped') === true;
      const status = !up ? 'down' : full || redis === 'down' || stopped ? 'degraded' : 'ok';
      if (!up) ctx.status = 503;
      return {
        status,
        instance: deps.config.instanceId,
        store: { kind: store.kind, state: up ? 'up' : 'down', ...(full ? { full: true as const } : {}) },
        redis,
        ...(indexers === null ? {} : { indexers }),
      };
    },
  );
}
