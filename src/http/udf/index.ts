/**
 * TradingView UDF datafeed (docs/api.md, TradingView UDF datafeed): what the stock udf-compatible-datafeed adapter
 * calls, so it charts any token in the store with no glue code. Errors keep both the UDF form and
 * the API envelope (the error handler adds `s`/`errmsg` under /udf/).
 */
import { ApiRouter } from '../route.js';
import type { Clock } from '../../domain/clock.js';
import type { Services } from '../../services/index.js';
import type { ResponseCache } from '../../read/response-cache.js';
import type { HistoryCache } from '../../read/history-cache.js';
import type { ReadModels } from '../../read/index.js';
import { addSymbolRoutes } from './symbols.js';
import { addHistoryRoute } from './history.js';
import { addQuotesRoute } from './quotes.js';
import { addMarksRoute } from './marks.js';
import type { UdfDeps } from './params.js';

export function udfRouter(deps: {
  clock: Clock;
  services: Pick<Services, 'repos' | 'chains'>;
  cache: ResponseCache;
  history: HistoryCache;
  symbols: ReadModels['symbols'];
}): ApiRouter {
  const repos = deps.services.repos;
  const kept = deps.symbols;
  const ctx: UdfDeps = {
    clock: deps.clock,
    chains: deps.services.chains,
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
