/** UDF /config, /symbols, /search and /time (docs/api.md, TradingView UDF datafeed). */
import { z } from 'zod';
import { intParam, textParam } from '../validate.js';
import type { ApiRouter } from '../route.js';
import { nowSeconds } from '../../domain/clock.js';
import { SYMBOL_TYPE, pairSymbolInfo, searchItem, splitSearchQuery, tokenSymbolInfo, udfConfig } from '../../domain/udf.js';
import { adapterParams, resolveChart, symbolParam, type UdfDeps } from './params.js';
import * as S from './schemas.js';

export const SEARCH_LIMIT_DEFAULT = 30;
export const SEARCH_LIMIT_MAX = 100;

export function addSymbolRoutes(router: ApiRouter, deps: UdfDeps): void {
  const { symbols, marketCandles, clock, cache } = deps;

  router.add(
    {
      method: 'get',
      path: '/udf/config',
      summary: 'UDF datafeed configuration',
      access: 'public',
      tag: 'udf',
      response: S.udfConfig,
      example: S.udfConfigExample,
    },
    // Every chart load asks for it: kept until any token changes (the exchange list is read by index anyway).
    () => cache.json('tokens', 'udf-config', async () => udfConfig(await symbols.exchanges())),
  );

  router.add(
    {
      method: 'get',
      path: '/udf/symbols',
      summary:
        'UDF symbol info for an address, a symbol (most liquid wins) or EXCHANGE:SYMBOL, in USD or MCAP (market cap); a market address is a pair symbol (SYMBOL/QUOTE)',
      access: 'public',
      tag: 'udf',
      query: z.object({ symbol: symbolParam(), ...adapterParams }),
      response: S.udfSymbol,
      example: S.udfSymbolExample,
    },
    async ({ query: q }) => {
      const chart = await resolveChart(symbols, q.symbol, q.currencyCode);
      if (chart.kind === 'token') return tokenSymbolInfo(chart.resolved.token, chart.resolved.exchange, chart.metric);
      const { token, market } = chart.pair;
      return pairSymbolInfo(token, market, chart.currency, await marketCandles.lastPrice(token.id, market.address, chart.currency));
    },
  );

  router.add(
    {
      method: 'get',
      path: '/udf/search',
      summary:
        'UDF symbol search by symbol prefix, name word prefix or address; EXCHANGE:TEXT searches one exchange; an empty query lists the most liquid tokens',
      access: 'public',
      tag: 'udf',
      query: z.object({
        query: textParam(1, 100).optional(),
        type: textParam(1, 32).optional(),
        exchange: textParam(1, 64).optional(),
        limit: intParam(1, SEARCH_LIMIT_MAX).prefault(String(SEARCH_LIMIT_DEFAULT)),
      }),
      response: S.udfSearch,
      example: S.udfSearchExample,
    },
    async ({ query: q }) => {
      // Every token is of the one listed type; any other type matches nothing.
      if (q.type !== undefined && q.type !== SYMBOL_TYPE) return [];
      const split = splitSearchQuery(q.query ?? '', q.exchange ?? null);
      if (split === null) return [];
      const found = await symbols.search({ query: split.text, exchange: split.exchange, limit: q.limit });
      return found.map(({ token, exchange }) => searchItem(token, exchange));
    },
  );

  router.add(
    {
      method: 'get',
      path: '/udf/time',
      summary: 'Server time: a bare integer of unix seconds',
      access: 'public',
      tag: 'udf',
      response: S.udfTime,
      example: S.udfTimeExample,
      responseType: 'text/plain',
    },
    (_input, ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'text/plain';
      return String(nowSeconds(clock));
    },
  );
}
