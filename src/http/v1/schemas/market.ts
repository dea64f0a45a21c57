/**
 * Response schemas of discovery, search and prices (docs/api.md, Discovery, search, prices): the ranked
 * lists (trending, gainers, losers, new), search, the current prices and the prices at a time.
 */
import { z } from 'zod';
import { DISCOVERY_WINDOWS } from '../../../domain/windows.js';
import { MATCH_KINDS } from '../../../store/port/repos.js';
import { address, chainField, count, EX, pctOrNull, rank, unixTime, unixTimeOrNull, usd, usdOrNull } from './common.js';

const rankedToken = z.strictObject({
  rank: rank(),
  address: address('Token address'),
  chain: chainField('token'),
  symbol: z.string(),
  name: z.string(),
  priceUsd: usdOrNull('Price of the last trade'),
  priceChangePct: pctOrNull('Change of the price over the window'),
  volumeUsd: usd('Volume in the window'),
  trades: count('Trades in the window'),
  liquidityUsd: usd('Liquidity summed over the markets of the token'),
  marketCapUsd: usdOrNull('Price x circulating supply'),
  createdAt: unixTime('Creation time of the token'),
});

export const rankedTokens = z
  .strictObject({
    window: z.enum(DISCOVERY_WINDOWS).nullable().describe('The window of the figures; null for /v1/market/new (its figures cover 24 h)'),
    tokens: z.array(rankedToken).describe('In rank order'),
  })
  .describe('A ranked list of tokens');
export const rankedTokensExample: z.output<typeof rankedTokens> = {
  window: '24h',
  tokens: [
    {
      rank: 1,
      address: EX.token,
      symbol: 'BONK',
      name: 'Bonk',
      priceUsd: 0.0000213,
      priceChangePct: 4.2,
      volumeUsd: 8300000,
      trades: 51234,
      liquidityUsd: 5400000,
      marketCapUsd: 1380000000,
      createdAt: 1700000000,
    },
  ],
};
export const newTokensExample: z.output<typeof rankedTokens> = {
  window: null,
  tokens: [
    {
      rank: 1,
      address: EX.token2,
      symbol: 'WIF',
      name: 'dogwifhat',
      priceUsd: null,
      priceChangePct: null,
      volumeUsd: 0,
      trades: 0,
      liquidityUsd: 0,
      marketCapUsd: null,
      createdAt: 1763855000,
    },
  ],
};

export const searchResults = z
  .strictObject({
    results: z
      .array(
        z.strictObject({
          address: address('Token address'),
          chain: chainField('token'),
          symbol: z.string(),
          name: z.string(),
          priceUsd: usdOrNull('Price of the last trade'),
          liquidityUsd: usd('Liquidity summed over the markets of the token'),
          volume24hUsd: usd('Volume of the last 24 hours'),
          matchedBy: z.enum(MATCH_KINDS).describe('How the token matched: exact address, exact symbol, symbol prefix, or name'),
        }),
      )
      .describe('Exact address, exact symbol, symbol prefix, then name matches; within each, by 24 h volume'),
  })
  .describe('Tokens matching a query');
export const searchResultsExample: z.output<typeof searchResults> = {
  results: [{ address: EX.token, symbol: 'BONK', name: 'Bonk', priceUsd: 0.0000213, liquidityUsd: 5400000, volume24hUsd: 8300000, matchedBy: 'symbol' }],
};

export const prices = z
  .strictObject({
    prices: z
      .record(
        z.string(),
        z
          .strictObject({
            priceUsd: usdOrNull('Price of the last trade'),
            priceChangePct24h: pctOrNull('Change of the price over 24 hours'),
            updatedAt: unixTime('Time of the trade that set the price (null before any trade)').nullable(),
            chain: chainField('token'),
          })
          .nullable(),
      )
      .describe('By address exactly as asked; null for an unknown token'),
  })
  .describe('Current prices');
export const pricesExample: z.output<typeof prices> = {
  prices: { [EX.token]: { priceUsd: 0.0000213, priceChangePct24h: 4.2, updatedAt: 1763855995 }, [EX.token2]: null },
};

export const pricesAt = z
  .strictObject({
    time: unixTime('The time asked'),
    prices: z
      .record(
        z.string(),
        z
          .strictObject({
            priceUsd: z.number().describe('Price of that trade (USD)'),
            blockTime: unixTime('Block time of that trade'),
            tradeId: z.int().min(1).describe('Id of that trade'),
            chain: chainField('token'),
          })
          .nullable(),
      )
      .describe('By address exactly as asked: the last trade at or before `time` in trade order; null when there is none or the token is unknown'),
  })
  .describe('Prices at a time');
export const pricesAtExample: z.output<typeof pricesAt> = {
  time: 1763800000,
  prices: { [EX.token]: { priceUsd: 0.0000209, blockTime: 1763799987, tradeId: 4100 }, [EX.token2]: null },
};

const indexerStatus = z
  .strictObject({
    chain: z.string().describe('Chain name'),
    head: z.int().min(0).describe('Newest block the node reported'),
    indexed: z.int().min(0).describe('Newest block committed'),
    lag: z.int().min(0).describe('Blocks behind the head'),
    state: z.enum(['backfilling', 'following', 'stopped']).describe('What the indexer is doing'),
  })
  .describe("The chain's indexer as /healthz shows it");

export const chainList = z
  .strictObject({
    chains: z
      .array(
        z.strictObject({
          chain: z.string().describe('Chain name'),
          default: z.boolean().describe('Whether this is the default chain: its tokens are named by their address alone'),
          tokens: count('Tokens of the chain'),
          markets: count('Markets of the chain'),
          trades: count('Trades of the chain'),
          lastTradeAt: unixTimeOrNull('Time of the newest trade of the chain'),
          indexer: indexerStatus.nullable().describe("The chain's indexer as /healthz shows it, null when none indexes it"),
        }),
      )
      .describe('In the configured order (CHAINS), the default first'),
  })
  .describe('The chains of the deployment');
export const chainListExample: z.output<typeof chainList> = {
  chains: [
    { chain: 'solana', default: true, tokens: 1200, markets: 2300, trades: 5400000, lastTradeAt: 1763855995, indexer: null },
    {
      chain: 'base',
      default: false,
      tokens: 80,
      markets: 95,
      trades: 120000,
      lastTradeAt: 1763855990,
      indexer: { chain: 'base', head: 23800120, indexed: 23800118, lag: 2, state: 'following' },
    },
  ],
};
