/**
 * While a large ingest batch is being written in slices, requests wait for its commit before
 * they run (docs/api.md, Ingest limits): the slices share one open transaction on the one connection,
 * and a read between them would see half a batch. Waiting is asynchronous, so the event loop
 * keeps serving what does not read market data: /healthz, /metrics and static assets go through.
 */
import type { Middleware } from 'koa';
import type { Store } from '../store/db.js';

const PASS = /^\/(healthz|metrics)$|^\/assets\//;

export function waitForSlicedWrites(store: Store): Middleware {
  return async (ctx, next) => {
    const pending = store.settled();
    if (pending !== null && !PASS.test(ctx.path)) await pending;
    return next();
  };
}
