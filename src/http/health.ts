/**
 * GET /healthz: the process is up and the store answers. Not counted by the limiter.
 *
 * A full store (a full disk, or SQLite's max_page_count reached) is reported, because reads
 * still work there but every write answers 507 (docs/api.md, Conventions): 503 with
 * `{"status":"degraded","store":"full"}`. The store counts as full while its pages are all used
 * (PRAGMA page_count at max_page_count with no free page), or after a write failed with
 * SQLITE_FULL until a later write succeeds (a full disk shows only that way).
 */
import { ApiRouter } from './route.js';
import type { Store } from '../store/db.js';
import { createStatsRepo } from '../store/stats-repo.js';
import type { AppDeps } from './types.js';

/** Records that a write to `store` failed because it is full (the error handler calls this). */
export function markStoreFull(store: Store): void {
  store.full = true;
}

/** Records that a write to `store` succeeded, so it has room again. */
export function markStoreWritable(store: Store): void {
  store.full = false;
}

export function healthRouter(deps: AppDeps): ApiRouter {
  const { store } = deps;
  const stats = createStatsRepo(store.db);
  return new ApiRouter().add(
    { method: 'get', path: '/healthz', summary: 'Liveness and store check (503 when the store is full)', access: 'internal', tag: 'operations' },
    (_input, ctx) => {
      ctx.set('Cache-Control', 'no-store');
      const answers = stats.answers();
      if (answers && (store.full || stats.atPageLimit())) {
        ctx.status = 503;
        return { status: 'degraded', store: 'full' };
      }
      return { status: 'ok', store: answers ? 'ok' : 'error' };
    },
  );
}
