/**
 * TradingView UDF datafeed (docs/api.md, TradingView UDF datafeed): what the stock udf-compatible-datafeed adapter
 * calls, so it charts any token in the store with no glue code. Errors keep both the UDF form and
 * the API envelope (the error handler adds `s`/`errmsg` under /udf/).
 */
import { ApiRouter } from '../route.js';
import type { Clock } from '../../domain/clock.js';
import type { Services } from '../../services/index.js';
import type { StoreHandle } from '../../store/handle.js';
import type { ResponseCache } from '../response-cache.js';
import type { HistoryCache } from '../history-cache.js';
import { withResolveCache } from './resolve-cache.js';
import { addSymbolRoutes } from './symbols.js';
import { addHistoryRoute } from './history.js';
import { addQuotesRoute } from './quotes.js';
import type { UdfDeps } from './params.js';

export function udfRouter(deps: {
  clock: Clock;
  services: Pick<Services, 'repos'>;
  store: StoreHandle;
  cache: ResponseCache;
  history: HistoryCache;
}): ApiRouter {
  const repos = deps.services.repos;
  // Resolved names live in memory with the answers (CACHE=off measures without either).
  const kept = deps.cache.enabled ? withResolveCache(repos.symbols, deps.store) : null;
  const ctx: UdfDeps = {
    clock: deps.clock,
    symbols: kept ?? repos.symbols,
    known: kept?.known ?? (() => undefined),
    candles: repos.candles,
    marketCandles: repos.marketCandles,
    windows: repos.window,
    cache: deps.cache,
    history: deps.history,
  };
  const router = new ApiRouter();
  addSymbolRoutes(router, ctx);
  addHistoryRoute(router, ctx);
  addQuotesRoute(router, ctx);
  return router;
}
