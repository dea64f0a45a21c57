/**
 * Response schemas of the token reads (docs/api.md, Token reads): overview, trades, candles, top
 * traders, holders, markets. The handlers' answers are typed by these, and /openapi.json shows
 * them through z.toJSONSchema; each has one example that validates against it.
 */
import { z } from 'zod';
import { OVERVIEW_WINDOWS, TRADER_WINDOWS } from '../../../domain/windows.js';
import { address, chainField, count, cursor, EX, pctOrNull, rank, unixTime, unixTimeOrNull, usd, usdOrNull } from './common.js';

const windowFigures = z
  .strictObject({
    priceChangePct: pctOrNull('Last price against the price at the start of the window'),
    volumeUsd: usd('Volume in the window'),
    buyVolumeUsd: usd('Buy volume in the window'),
    sellVolumeUsd: usd('Sell volume in the window'),
    trades: count('Trades in the window'),
    buys: count('Buys in the window'),
    sells: count('Sells in the window'),
    uniqueWallets: count('Distinct wallets that traded in the window'),
  })
  .describe('Figures of the window (now - length, now]');

const windows = Object.fromEntries(OVERVIEW_WINDOWS.map((w) => [w, windowFigures])) as Record<(typeof OVERVIEW_WINDOWS)[number], typeof windowFigures>;

export const tokenOverview = z
  .strictObject({
    address: address('Token address'),
    chain: z.string().describe("The token's chain"),
    symbol: z.string(),
    name: z.string(),
    decimals: z.int().min(0).max(36),
    logoUri: z.string().nullable().describe('Logo URL, null when unknown'),
    createdAt: unixTime('Creation time of the token'),
    priceUsd: usdOrNull('Price of the last trade'),
    liquidityUsd: usd('Liquidity summed over the markets of the token'),
    marketCapUsd: usdOrNull('Price x circulating supply'),
    fdvUsd: usdOrNull('Price x total supply'),
    totalSupply: z.number().nullable().describe('Total supply, null when unknown'),
    circulatingSupply: z.number().nullable().describe('Circulating supply, null when unknown'),
    holders: count('Number of holders'),
    markets: count('Number of markets'),
    lastTradeAt: unixTimeOrNull('Time of the last trade'),
    updatedAt: unixTime('Time of the newest ingest that touched the token'),
    windows: z.strictObject(windows).describe('Figures of the last 5 minutes, hour, 6 hours and 24 hours'),
  })
  .describe('A token with its price, supply, market figures and rolling windows');

const exWindow = (n: number) => ({
  priceChangePct: 2.5 * n,
  volumeUsd: 1200 * n,
  buyVolumeUsd: 700 * n,
  sellVolumeUsd: 500 * n,
  trades: 12 * n,
  buys: 7 * n,
  sells: 5 * n,
  uniqueWallets: 4 * n,
});
export const tokenOverviewExample: z.output<typeof tokenOverview> = {
  address: EX.token,
  chain: 'solana',
  symbol: 'BONK',
  name: 'Bonk',
  decimals: 5,
  logoUri: null,
  createdAt: 1700000000,
  priceUsd: 0.0000213,
  liquidityUsd: 5400000,
  marketCapUsd: 1380000000,
  fdvUsd: 1990000000,
  totalSupply: 93526183276778,
  circulatingSupply: 64800000000000,
  holders: 812345,
  markets: 2,
  lastTradeAt: 1763855990,
  updatedAt: 1763855995,
  windows: { '5m': exWindow(1), '1h': exWindow(4), '6h': exWindow(20), '24h': exWindow(70) },
};

export const trade = z
  .strictObject({
    id: z.int().min(1).describe('Trade id: later ingests get larger ids'),
    signature: z.string().describe('Transaction signature'),
    index: z.int().min(0).describe('Index of the trade within the transaction'),
    blockTime: unixTime('Block time'),
    side: z.enum(['buy', 'sell']).describe('buy: the wallet bought the token'),
    priceUsd: z.number().describe('Price of the token in this trade (USD)'),
    amount: z.number().describe('Amount of the token'),
    quoteAmount: z.number().describe('Amount of the quote token'),
    volumeUsd: usd('Value of the trade'),
    wallet: address('Wallet that traded'),
    market: address('Market (pair) address'),
    dex: z.string().nullable().describe('Dex of the market, null when the market is not in the store'),
    chain: chainField('trade (its market address is then the plain address on it)'),
  })
  .describe('A trade (T)');

export const tradeExample: z.output<typeof trade> = {
  id: 4242,
  signature: '5h6xBEauJ3PK6SWCZ1PGjBvj8vDdWG3KpwATGy1ARAXFSDwt8GFXM7W5Ncn16wmqokgpiKRLuS83KUxyZyv2sUYv',
  index: 0,
  blockTime: 1763855990,
  side: 'buy',
  priceUsd: 0.0000213,
  amount: 46948356,
  quoteAmount: 0.0074,
  volumeUsd: 1,
  wallet: EX.wallet,
  market: EX.market,
  dex: 'raydium',
};

export const tokenTrades = z
  .strictObject({
    trades: z.array(trade).describe('Newest first by (blockTime, id)'),
    nextCursor: cursor('Pass as `cursor` for the next page; null exactly when no further trade exists').nullable(),
  })
  .describe('One page of trades');
export const tokenTradesExample: z.output<typeof tokenTrades> = { trades: [tradeExample], nextCursor: null };

export const tokenCandles = z
  .strictObject({
    resolution: z.string().describe('The resolution of the bars, in the UDF spelling (D, W, M read as 1D, 1W, 1M)'),
    candles: z
      .array(
        z.strictObject({
          t: unixTime('Start of the bar'),
          o: z.number().describe('Open (USD, or in the quote token with currency=native)'),
          h: z.number().describe('High'),
          l: z.number().describe('Low'),
          c: z.number().describe('Close'),
          v: z.number().describe('Volume: USD, or quote units with currency=native'),
        }),
      )
      .describe('Bars ascending by t; the same bars as /udf/history'),
  })
  .describe('OHLCV bars of a token');
export const tokenCandlesExample: z.output<typeof tokenCandles> = {
  resolution: '60',
  candles: [
    { t: 1763852400, o: 0.0000211, h: 0.0000215, l: 0.000021, c: 0.0000213, v: 51234.5 },
    { t: 1763856000, o: 0.0000213, h: 0.0000214, l: 0.0000212, c: 0.0000214, v: 20311 },
  ],
};

export const topTraders = z
  .strictObject({
    window: z.enum(TRADER_WINDOWS).describe('The window the figures cover'),
    traders: z
      .array(
        z.strictObject({
          rank: rank(),
          wallet: address('Wallet'),
          volumeUsd: usd('Volume of the wallet in the window'),
          buyVolumeUsd: usd('Buy volume'),
          sellVolumeUsd: usd('Sell volume'),
          netUsd: usd('Sell volume - buy volume'),
          trades: count('Trades'),
          buys: count('Buys'),
          sells: count('Sells'),
        }),
      )
      .describe('Wallets in the order asked (descending); ties by wallet ascending'),
  })
  .describe('Wallets ranked in a window');
export const topTradersExample: z.output<typeof topTraders> = {
  window: '24h',
  traders: [{ rank: 1, wallet: EX.wallet, volumeUsd: 15000, buyVolumeUsd: 9000, sellVolumeUsd: 6000, netUsd: -3000, trades: 31, buys: 20, sells: 11 }],
};

export const tokenHolders = z
  .strictObject({
    totalHolders: count('Number of holders'),
    holders: z
      .array(
        z.strictObject({
          rank: rank(),
          owner: address('Holder'),
          amount: z.number().describe('Amount held'),
          percent: z.number().nullable().describe('Percent of the total supply, null when the supply is unknown'),
          valueUsd: usdOrNull('Amount x the last price'),
        }),
      )
      .describe('Largest first; ties by owner ascending'),
  })
  .describe('Largest holders of a token');
export const tokenHoldersExample: z.output<typeof tokenHolders> = {
  totalHolders: 812345,
  holders: [{ rank: 1, owner: EX.wallet2, amount: 5000000000000, percent: 5.346, valueUsd: 106500000 }],
};

export const tokenMarkets = z
  .strictObject({
    markets: z
      .array(
        z.strictObject({
          address: address('Market (pair) address'),
          chain: chainField('market'),
          dex: z.string().describe('Dex of the market'),
          quoteAddress: address('Quote token'),
          quoteSymbol: z.string().describe('Symbol of the quote token'),
          priceUsd: usdOrNull("Price of the token in this market's last trade"),
          liquidityUsd: usd('Liquidity of the market'),
          volume24hUsd: usd('Volume of the last 24 hours'),
          trades24h: count('Trades of the last 24 hours'),
          createdAt: unixTime('Creation time of the market'),
        }),
      )
      .describe('Most liquid first'),
  })
  .describe('Markets of a token');
export const tokenMarketsExample: z.output<typeof tokenMarkets> = {
  markets: [
    {
      address: EX.market,
      dex: 'raydium',
      quoteAddress: EX.sol,
      quoteSymbol: 'SOL',
      priceUsd: 0.0000213,
      liquidityUsd: 5100000,
      volume24hUsd: 830000,
      trades24h: 5123,
      createdAt: 1700000100,
    },
  ],
};
