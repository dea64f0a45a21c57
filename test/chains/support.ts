/**
 * Fixtures of the several-chain tests of the UDF datafeed, the stream and the datafeed module: one
 * 0x address that is a token on Base and another token on Ethereum, with different markets'
 * liquidity, trades and wallets, beside a token on the default chain (docs/chains.md).
 */
import { aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';
import type { IngestRecord, TradeRecord } from '../../src/domain/records.js';
import type { TestApp } from '../helpers/make-test-app.js';

export const CHAINS_ENV = { CHAINS: 'solana,base,ethereum' };

/** The address both EVM chains hold a token at (Base's WETH is not Ethereum's). */
export const WETH = '0x4200000000000000000000000000000000000006';
/** One market address on both chains too. */
export const POOL = '0x00000000000000000000000000000000000000aa';
/** The hour all the fixture's trades fall in (a 60-minute bar's start). */
export const HOUR = 1_699_999_200;
/** A wallet that trades on both chains. */
export const WALLET = '0x1111111111111111111111111111111111111111';

export type Fixture = { solanaToken: string; baseTrades: TradeRecord[]; ethTrades: TradeRecord[] };

/**
 * Base's WETH: liquidity 1,000, trades at 3000 then 3100 (volumes 30 and 31). Ethereum's: liquidity
 * 5,000 (the more liquid), one trade at 3500 (volume 70). A Solana token BONK on the default chain.
 */
export function ingestTwoChains(t: TestApp): Fixture {
  const bonk = aToken({ symbol: 'BONK', name: 'Bonk' });
  const records: IngestRecord[] = [
    bonk,
    aMarket(bonk.address, { dex: 'raydium', liquidityUsd: 100 }),
    { ...aToken({ address: WETH, symbol: 'WETH', name: 'Wrapped Ether', decimals: 18 }), chain: 'base' },
    { ...aMarket(WETH, { address: POOL, dex: 'aerodrome', quoteAddress: anAddress('q'), quoteSymbol: 'USDC', liquidityUsd: 1000 }), chain: 'base' },
    { ...aToken({ address: WETH, symbol: 'WETH', name: 'Wrapped Ether', decimals: 18, circulatingSupply: 2000 }), chain: 'ethereum' },
    { ...aMarket(WETH, { address: POOL, dex: 'uniswap', quoteAddress: anAddress('q'), quoteSymbol: 'USDT', liquidityUsd: 5000 }), chain: 'ethereum' },
  ];
  t.ingest(records);
  const baseTrades = [
    { ...aTrade(WETH, { market: POOL, blockTime: HOUR + 100, priceUsd: 3000, volumeUsd: 30, wallet: WALLET, side: 'buy' }), chain: 'base' },
    { ...aTrade(WETH, { market: POOL, blockTime: HOUR + 200, priceUsd: 3100, volumeUsd: 31, wallet: WALLET, side: 'sell' }), chain: 'base' },
  ] as TradeRecord[];
  const ethTrades = [
    { ...aTrade(WETH, { market: POOL, blockTime: HOUR + 150, priceUsd: 3500, volumeUsd: 70, wallet: WALLET, side: 'buy' }), chain: 'ethereum' },
  ] as TradeRecord[];
  t.ingest(baseTrades);
  t.ingest(ethTrades);
  return { solanaToken: bonk.address, baseTrades, ethTrades };
}

let liveTrades = 0;
/**
 * A buy of one WETH in POOL on `chain` (the same addresses on every chain), each with a signature
 * of its own: the trades the live tests send after the fixture.
 */
export const liveTrade = (chain: string, blockTime: number, priceUsd: number, volumeUsd = 10): IngestRecord => ({
  type: 'trade',
  chain,
  token: WETH,
  market: POOL,
  signature: `live-${chain}-${++liveTrades}`,
  index: 0,
  blockTime,
  side: 'buy',
  priceUsd,
  amount: 1,
  quoteAmount: 1,
  volumeUsd,
  wallet: WALLET,
});
