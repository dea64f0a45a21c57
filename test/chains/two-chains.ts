/**
 * One 0x token and its market on two chains, as tests of several chains ingest them
 * (docs/chains.md): the same addresses on `base` and `ethereum` with different symbols, prices
 * and trades, so an answer of one chain served for the other shows at once.
 */
import type { IngestRecord } from '../../src/domain/records.js';

export const CHAINS = 'solana,base,ethereum';
/** The token and market address both chains hold. */
export const TOKEN = '0x4200000000000000000000000000000000000006';
export const MARKET = '0x1111111111111111111111111111111111111111';
export const QUOTE = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
export const WALLET = '0x2222222222222222222222222222222222222222';
export const T0 = 1_700_000_000;

type Chain = 'base' | 'ethereum';

/** The token and market records of `chain` (ethereum's symbol and liquidity differ from base's). */
export function listing(chain: Chain): IngestRecord[] {
  const eth = chain === 'ethereum';
  return [
    {
      chain,
      type: 'token',
      address: TOKEN,
      symbol: eth ? 'ETHW' : 'BASEW',
      name: eth ? 'Wrapped on Ethereum' : 'Wrapped on Base',
      decimals: 18,
      totalSupply: eth ? 5000 : 1000,
      circulatingSupply: eth ? 5000 : 1000,
      createdAt: T0,
      logoUri: null,
    },
    {
      chain,
      type: 'market',
      address: MARKET,
      token: TOKEN,
      quoteAddress: QUOTE,
      quoteSymbol: 'USDC',
      dex: eth ? 'uniswap-v3' : 'uniswap-v2',
      liquidityUsd: eth ? 900 : 100,
      createdAt: T0,
    },
  ];
}

/** A trade on `chain` of `amount` tokens at `priceUsd`, `secondsIn` after T0. */
export function trade(chain: Chain, signature: string, priceUsd: number, amount: number, secondsIn: number, side: 'buy' | 'sell' = 'buy'): IngestRecord {
  return {
    chain,
    type: 'trade',
    token: TOKEN,
    market: MARKET,
    signature,
    index: 0,
    blockTime: T0 + secondsIn,
    side,
    priceUsd,
    amount,
    quoteAmount: priceUsd * amount,
    volumeUsd: priceUsd * amount,
    wallet: WALLET,
  };
}
