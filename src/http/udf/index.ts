/**
 * TradingView UDF datafeed (docs/api.md, TradingView UDF datafeed): what the stock udf-compatible-datafeed adapter
 * calls, so it charts any token in the store with no glue code. Errors keep both the UDF form and
 * the API envelope (the error handler adds `s`/`errmsg` under /udf/).
 */
import { ApiRouter } from '../route.js';
import type { AppDeps } from '../types.js';
import { createSymbolsRepo } from '../../store/symbols-repo.js';
import { createCandlesRepo } from '../../store/candles-repo.js';
import { createMarketCandlesRepo } from '../../store/market-candles-repo.js';
import { createWindowRepo } from '../../store/window-repo.js';
import { withResolveCache } from './resolve-cache.js';
import { addSymbolRoutes } from './symbols.js';
import { addHistoryRoute } from './history.js';
import { addQuotesRoute } from './quotes.js';
import type { UdfDeps } from './params.js';

export function udfRouter(deps: AppDeps): ApiRouter {
  const db = deps.store.db;
  const ctx: UdfDeps = {
    clock: deps.clock,
    // Resolved names live in memory with the answers (CACHE=off measures without either).
    symbols: deps.cache.enabled ? withResolveCache(createSymbolsRepo(db, deps.config.chain), deps.store) : createSymbolsRepo(db, deps.config.chain),
    candles: createCandlesRepo(db),
    marketCandles: createMarketCandlesRepo(db),
    windows: createWindowRepo(db),
    cache: deps.cache,
    history: deps.history,
  };
  const router = new ApiRouter();
  addSymbolRoutes(router, ctx);
  addHistoryRoute(router, ctx);
  addQuotesRoute(router, ctx);
  return router;
}
