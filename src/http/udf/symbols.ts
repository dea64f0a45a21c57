/** UDF /config, /symbols, /search and /time (docs/api.md, TradingView UDF datafeed). */
import { z } from 'zod';
import { enumParam, intParam, textParam } from '../validate.js';
import type { ApiRouter } from '../route.js';
import { nowSeconds } from '../../domain/clock.js';
import { SYMBOL_TYPE, pairSymbolInfo, searchItem, splitSearchQuery, tokenSymbolInfo, udfConfig } from '../../domain/udf.js';
import { adapterParams, resolveChart, symbolParam, type UdfDeps } from './params.js';
import * as S from './schemas.js';
import { describedOnChain, searchChain, searchItemOnChain } from '../../domain/udf-chains.js';
import { showsChains } from '../../domain/chains.js';

export const SEARCH_LIMIT_DEFAULT = 30;
export const SEARCH_LIMIT_MAX = 100;

export function addSymbolRoutes(router: ApiRouter, deps: UdfDeps): void {
  const { symbols, marketCandles, clock, cache, chains } = deps;
  const chainNames = chains.list as readonly [string, ...string[]];

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
    () =>
      cache.json('tokens', 'udf-config', async () => {
        const config = udfConfig(await symbols.exchanges());
        // Several chains: each chain is an exchange of the search dialog's menu, meaning that chain's tokens (docs/chains.md).
        if (!showsChains(chains)) return config;
        const [all, ...dexes] = config.exchanges;
        return { ...config, exchanges: [all!, ...chains.list.map((c) => ({ value: c, name: c, desc: `${c} (chain)` })), ...dexes] };
      }),
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
      const info =
        chart.kind === 'token'
          ? tokenSymbolInfo(chart.resolved.token, chart.resolved.exchange, chart.metric)
          : pairSymbolInfo(
              chart.pair.token,
              chart.pair.market,
              chart.currency,
              await marketCandles.lastPrice(chart.pair.token.id, chart.pair.market.address, chart.currency),
            );
      // The ticker is the store key (`chain:address` off the default chain): what /udf/history takes back.
      return { ...info, description: describedOnChain(info.description, info.ticker, chains) };
    },
  );

  router.add(
    {
      method: 'get',
      path: '/udf/search',
      summary:
        'UDF symbol search by symbol prefix, name word prefix or address; EXCHANGE:TEXT searches one exchange (CHAIN:TEXT one chain); chain= keeps to one chain; an empty query lists the most liquid tokens',
      access: 'public',
      tag: 'udf',
      query: z.object({
        query: textParam(1, 100).optional(),
        type: textParam(1, 32).optional(),
        exchange: textParam(1, 64).optional(),
        limit: intParam(1, SEARCH_LIMIT_MAX).prefault(String(SEARCH_LIMIT_DEFAULT)),
        chain: enumParam(chainNames).optional().describe('One chain of the deployment; without it, every chain'),
      }),
      response: S.udfSearch,
      example: S.udfSearchExample,
    },
    async ({ query: q }) => {
      // Every token is of the one listed type; any other type matches nothing.
      if (q.type !== undefined && q.type !== SYMBOL_TYPE) return [];
      const split = splitSearchQuery(q.query ?? '', q.exchange ?? null);
      if (split === null) return [];
      // A chain named as the exchange keeps to that chain; with chain= naming another, nothing matches.
      const on = searchChain(q.chain ?? null, split.exchange, chains);
      if (on === 'conflict') return [];
      const found = await symbols.search({ query: split.text, exchange: on.exchange, limit: q.limit, chain: on.chain });
      return found.map(({ token, exchange }) => searchItemOnChain(searchItem(token, exchange), chains));
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
