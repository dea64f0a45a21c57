/**
 * Discovery, search and prices (docs/api.md, Discovery and Search): thin handlers over the cached views of
 * discovery-views.ts.
 */
import { z } from 'zod';
import { ApiRouter } from '../route.js';
import type { Clock } from '../../domain/clock.js';
import type { Views } from '../../read/views.js';
import { enumParam, intParam, textParam } from '../validate.js';
import { nowSeconds } from '../../domain/clock.js';
import { DISCOVERY_WINDOWS } from '../../domain/windows.js';
import { MAX_DISCOVERY, type DiscoveryKind } from '../../read/discovery-views.js';
import { addressListParam, chainParam } from './params.js';
import type { Services } from '../../services/index.js';
import { addChainsRoute } from './chains.js';
import * as S from './schemas/market.js';

const MAX_PRICES = 100;

export function marketRouter(deps: { clock: Clock; views: Pick<Views, 'discovery'>; services: Pick<Services, 'chains' | 'indexers'> }): ApiRouter {
  const api = new ApiRouter();
  const { discovery } = deps.views;
  const { chains } = deps.services;
  const now = () => nowSeconds(deps.clock);
  const limit = intParam(1, MAX_DISCOVERY).prefault('20');
  // `chain=` keeps one chain's tokens; absent, the lists cover every chain (docs/chains.md).
  const chain = chainParam(chains);

  const lists: [DiscoveryKind, string][] = [
    ['trending', 'Tokens by volume in the window'],
    ['gainers', 'Tokens by price change in the window, largest first (at least 10 trades)'],
    ['losers', 'Tokens by price change in the window, smallest first (at least 10 trades)'],
  ];
  for (const [kind, summary] of lists) {
    api.add(
      {
        method: 'get',
        path: `/v1/market/${kind}`,
        summary,
        access: 'public',
        tag: 'market',
        query: z.object({
          window: enumParam(DISCOVERY_WINDOWS).prefault('24h'),
          limit,
          minLiquidityUsd: intParam(0, 1_000_000_000_000_000).prefault('0'),
          chain,
        }),
        response: S.rankedTokens,
        example: S.rankedTokensExample,
      },
      async ({ query: q }) => discovery.rankedJson(kind, q.window, q.minLiquidityUsd, q.limit, now, q.chain),
    );
  }

  api.add(
    {
      method: 'get',
      path: '/v1/market/new',
      summary: 'Newest tokens by creation time (figures of the last 24 h)',
      access: 'public',
      tag: 'market',
      query: z.object({ limit, chain }),
      response: S.rankedTokens,
      example: S.newTokensExample,
    },
    async ({ query }) => ({ window: null, tokens: await discovery.newest(query.limit, now(), query.chain) }),
  );

  api.add(
    {
      method: 'get',
      path: '/v1/search',
      summary: 'Tokens by address, symbol or name',
      access: 'public',
      tag: 'market',
      query: z.object({ q: textParam(1, 64), limit, chain }),
      response: S.searchResults,
      example: S.searchResultsExample,
    },
    async ({ query }) => discovery.searchJson(query.q, query.limit, now, query.chain),
  );

  api.add(
    {
      method: 'get',
      path: '/v1/prices',
      summary: 'Last price, 24 h change and last trade time of up to 100 tokens',
      access: 'public',
      tag: 'market',
      query: z.object({ addresses: addressListParam(MAX_PRICES, chains) }),
      response: S.prices,
      example: S.pricesExample,
    },
    async ({ query }) => ({ prices: await discovery.prices(query.addresses, now()) }),
  );

  addChainsRoute(api, { chains, indexers: deps.services.indexers, discovery });

  return api;
}
