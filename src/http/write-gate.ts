/**
 * While a large ingest batch is being written in slices, requests wait for its commit before
 * they run (docs/api.md, Ingest limits): the slices share one open transaction on the one connection,
 * and a read between them would see half a batch. Waiting is asynchronous, so the event loop
 * keeps serving what does not read market data: /healthz, /metrics and static assets go through.
 */
import type { Middleware } from 'koa';
import type { StoreHandle } from '../store/port/handle.js';

const PASS = /^\/(healthz|metrics)$|^\/assets\//;

/** What a request at `path` must wait for before it runs: the sliced write under way, or null. */
export function sliceWait(store: Pick<StoreHandle, 'settled'>, path: string): Promise<void> | null {
  const pending = store.settled();
  return pending !== null && !PASS.test(path) ? pending : null;
}

/** The write gate on its own, as a middleware (the app runs it inside src/http/gate.ts). */
export function waitForSlicedWrites(store: StoreHandle): Middleware {
  return async (ctx, next) => {
    const pending = sliceWait(store, ctx.path);
    if (pending !== null) await pending;
    return next();
  };
}
