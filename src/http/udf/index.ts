/**
 * TradingView UDF datafeed (docs/api.md, TradingView UDF datafeed): what the stock udf-compatible-datafeed adapter
 * calls, so it charts any token in the store with no glue code. Errors keep both the UDF form and
 * the API envelope (the error handler adds `s`/`errmsg` under /udf/).
 */
import { ApiRouter } from '../route.js';
import type { AppDeps } from '../types.js';
import { withResolveCache } from './resolve-cache.js';
import { addSymbolRoutes } from './symbols.js';
import { addHistoryRoute } from './history.js';
import { addQuotesRoute } from './quotes.js';
import { addMarksRoute } from './marks.js';
import type { UdfDeps } from './params.js';

export function udfRouter(deps: AppDeps): ApiRouter {
  const repos = deps.services.repos;
  // Resolved names live in memory with the answers (CACHE=off measures without either).
  const kept = deps.cache.enabled ? withResolveCache(repos.symbols, deps.store) : null;
  const ctx: UdfDeps = {
    clock: deps.clock,
    symbols: kept ?? repos.symbols,
    known: kept?.known ?? (() => undefined),
    candles: repos.candles,
    trades: repos.trades,
    marketCandles: repos.marketCandles,
    windows: repos.window,
    cache: deps.cache,
    history: deps.history,
  };
  const router = new ApiRouter();
  addSymbolRoutes(router, ctx);
  addHistoryRoute(router, ctx);
  addQuotesRoute(router, ctx);
  addMarksRoute(router, ctx);
  return router;
}
