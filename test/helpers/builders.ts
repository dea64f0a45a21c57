/**
 * Data builders for tests: short, readable fixtures in the ingest format. Addresses are valid
 * base58 made from a counter, so every call gives a fresh one.
 */
import type { IngestRecord, TokenRecord, MarketRecord, TradeRecord, HolderRecord } from '../../src/domain/records.js';

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
let counter = 0;

/** A fresh, well-formed base58 address (44 characters). `tag` makes it readable in failures. */
export function anAddress(tag = ''): string {
  counter++;
  let n = counter;
  let s = '';
  while (s.length < 12) {
    s = B58[n % 58] + s;
    n = Math.floor(n / 58);
  }
  const clean = [...tag]
    .filter((c) => B58.includes(c))
    .join('')
    .slice(0, 20);
  return (clean + 'T'.repeat(44)).slice(0, 44 - 12) + s;
}

export const aToken = (over: Partial<TokenRecord> = {}): TokenRecord => ({
  type: 'token',
  address: anAddress('tok'),
  symbol: 'TEST',
  name: 'Test Token',
  decimals: 6,
  totalSupply: 1_000_000,
  circulatingSupply: 800_000,
  createdAt: 1_700_000_000,
  logoUri: null,
  ...over,
});

export const aMarket = (token: string, over: Partial<MarketRecord> = {}): MarketRecord => ({
  type: 'market',
  address: anAddress('mkt'),
  token,
  quoteAddress: 'So11111111111111111111111111111111111111112',
  quoteSymbol: 'SOL',
  dex: 'raydium',
  liquidityUsd: 10_000,
  createdAt: 1_700_000_100,
  ...over,
});

let sig = 0;
export const aTrade = (token: string, over: Partial<TradeRecord> = {}): TradeRecord => ({
  type: 'trade',
  token,
  market: over.market ?? anAddress('mkt'),
  signature: `sig${++sig}`,
  index: 0,
  blockTime: 1_700_000_200,
  side: 'buy',
  priceUsd: 1,
  amount: 10,
  quoteAmount: 0.1,
  volumeUsd: 10,
  wallet: anAddress('wal'),
  ...over,
});

export const aHolder = (token: string, over: Partial<HolderRecord> = {}): HolderRecord => ({
  type: 'holder',
  token,
  owner: anAddress('own'),
  amount: 100,
  updatedAt: 1_700_000_300,
  ...over,
});

/** Records as NDJSON text. */
export const ndjson = (records: readonly (IngestRecord | Record<string, unknown>)[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
