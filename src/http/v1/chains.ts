/**
 * GET /v1/chains (docs/api.md, Chains; docs/chains.md): the chains of the deployment in their
 * configured order, the default first, each with its tokens, markets, trades and newest trade
 * as the store counts them, and its indexer as /healthz shows it (null when none indexes it).
 * The counts are cached until the store's tokens change; the indexers' status is read live.
 */
import type { ApiRouter } from '../route.js';
import type { Chains } from '../../domain/chains.js';
import type { IndexerBoard } from '../../indexer/evm/board.js';
import type { DiscoveryViews } from '../../read/discovery-views.js';
import * as S from './schemas/market.js';

export function addChainsRoute(api: ApiRouter, deps: { chains: Chains; indexers: IndexerBoard; discovery: Pick<DiscoveryViews, 'chainCounts'> }): void {
  const { chains, indexers, discovery } = deps;
  api.add(
    {
      method: 'get',
      path: '/v1/chains',
      summary: 'The chains of the deployment, the default first, with their counts and indexers',
      access: 'public',
      tag: 'market',
      response: S.chainList,
      example: S.chainListExample,
    },
    async () => {
      // An indexer that cannot be read is left out, as /healthz leaves it out.
      const [counts, status] = await Promise.all([discovery.chainCounts(), indexers.status().catch(() => null)]);
      return {
        chains: counts.map((c) => ({
          chain: c.chain,
          default: c.chain === chains.defaultChain,
          tokens: c.tokens,
          markets: c.markets,
          trades: c.trades,
          lastTradeAt: c.lastTradeAt,
          indexer: status?.find((i) => i.chain === c.chain) ?? null,
        })),
      };
    },
  );
}
