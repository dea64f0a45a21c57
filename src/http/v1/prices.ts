/**
 * GET /v1/prices/at (docs/api.md, Discovery, search, prices): the price of up to 100 tokens at a past
 * time, each the last trade at or before it in trade order. One index seek per token; not cached,
 * since a backfilled trade can change any past answer.
 */
import { z } from 'zod';
import { ApiRouter } from '../route.js';
import type { Services } from '../../services/index.js';
import { intParam } from '../validate.js';
import { keyChain, showsChains } from '../../domain/chains.js';
import type { PricePoint } from '../../store/port/repos.js';
import { addressListParam, MAX_TIME } from './params.js';
import * as S from './schemas/market.js';

const MAX_PRICES = 100;

export function pricesRouter(deps: { services: Pick<Services, 'repos' | 'chains'> }): ApiRouter {
  const api = new ApiRouter();
  const { tokens, trades } = deps.services.repos;
  const { chains } = deps.services;
  const shown = showsChains(chains);

  api.add(
    {
      method: 'get',
      path: '/v1/prices/at',
      summary: 'Price of up to 100 tokens at a time: the last trade at or before it',
      access: 'public',
      tag: 'market',
      // The newest second ingest accepts (9999-12-31T23:59:59Z).
      query: z.object({ addresses: addressListParam(MAX_PRICES, chains), time: intParam(0, MAX_TIME - 1) }),
      response: S.pricesAt,
      example: S.pricesAtExample,
    },
    async ({ query: q }) => {
      // One seek per token, sent together (one wait on PostgreSQL, not one per token).
      const points = await Promise.all(
        q.addresses.map(async ({ address }) => {
          const token = await tokens.byAddress(address);
          return token === undefined ? null : trades.lastAtOrBefore(token.id, q.time);
        }),
      );
      const prices: Record<string, (PricePoint & { chain?: string }) | null> = {};
      q.addresses.forEach(({ asked, address }, i) => {
        const point = points[i] ?? null;
        // Several chains: each price names its token's chain (docs/chains.md, Answers).
        prices[asked] = point !== null && shown ? { ...point, chain: keyChain(address, chains) } : point;
      });
      return { time: q.time, prices };
    },
  );

  return api;
}
