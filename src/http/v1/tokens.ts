/**
 * Token reads (docs/api.md, Token reads): overview and ranked lists here; trades and candles in
 * token-trades.ts. Handlers validate, find the token (404 when unknown), and shape the answer
 * of the cached views in token-views.ts.
 */
import { z } from 'zod';
import { ApiRouter } from '../route.js';
import type { Clock } from '../../domain/clock.js';
import type { Views } from '../../read/views.js';
import type { TradeRouteDeps } from './token-trades.js';
import { enumParam, intParam } from '../validate.js';
import { nowSeconds } from '../../domain/clock.js';
import { TRADER_WINDOWS } from '../../domain/windows.js';
import { findToken, tokenPath as tokenPathOf } from './params.js';
import { addTradeRoutes } from './token-trades.js';
import { MAX_LIST } from '../../read/token-views.js';
import * as S from './schemas/tokens.js';

export function tokensRouter(deps: { clock: Clock; views: Views } & TradeRouteDeps): ApiRouter {
  const api = new ApiRouter();
  const { tokens, token: views } = deps.views;
  const now = () => nowSeconds(deps.clock);
  // Paths name a token by its address, or `chain:address` (docs/chains.md).
  const tokenPath = tokenPathOf(deps.services.chains);

  api.add(
    {
      method: 'get',
      path: '/v1/token/:address/overview',
      summary: 'Token overview with 5m, 1h, 6h and 24h windows',
      access: 'public',
      tag: 'tokens',
      params: tokenPath,
      response: S.tokenOverview,
      example: S.tokenOverviewExample,
    },
    async ({ params }) => views.overviewJson(await findToken(tokens, params.address), now()),
  );

  addTradeRoutes(api, deps);

  api.add(
    {
      method: 'get',
      path: '/v1/token/:address/top-traders',
      summary: 'Wallets ranked by volume, trade count or net flow in a window',
      access: 'public',
      tag: 'tokens',
      params: tokenPath,
      query: z.object({
        window: enumParam(TRADER_WINDOWS).prefault('24h'),
        sort: enumParam(['volume', 'trades', 'net'] as const).prefault('volume'),
        limit: intParam(1, MAX_LIST).prefault('100'),
      }),
      response: S.topTraders,
      example: S.topTradersExample,
    },
    async ({ query: q, params }) => views.topTradersJson(await findToken(tokens, params.address), q.window, q.sort, q.limit),
  );

  api.add(
    {
      method: 'get',
      path: '/v1/token/:address/holders',
      summary: 'Largest holders, with their percent of the total supply',
      access: 'public',
      tag: 'tokens',
      params: tokenPath,
      query: z.object({ limit: intParam(1, MAX_LIST).prefault('100') }),
      response: S.tokenHolders,
      example: S.tokenHoldersExample,
    },
    async ({ query, params }) => views.holdersJson(await findToken(tokens, params.address), query.limit),
  );

  api.add(
    {
      method: 'get',
      path: '/v1/token/:address/markets',
      summary: 'Markets of a token, most liquid first, with 24 h volume and trades',
      access: 'public',
      tag: 'tokens',
      params: tokenPath,
      query: z.object({ limit: intParam(1, MAX_LIST).prefault(String(MAX_LIST)) }),
      response: S.tokenMarkets,
      example: S.tokenMarketsExample,
    },
    async ({ query, params }) => views.marketsJson(await findToken(tokens, params.address), query.limit, now()),
  );

  return api;
}
