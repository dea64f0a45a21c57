/**
 * Data builders for tests: short, readable fixtures in the ingest format. Addresses are valid
 * base58 made from a counter, so every call gives a fresh one. A trade must name a stored market
 * (docs/api.md, Data and ingest): `aTrade(token)` trades on `marketOf(token)`, and
 * `homeMarket(token)` (or `withMarket(tok)`) is that market's record, to ingest before the trades.
 */
import { createHash } from 'node:crypto';
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

/**
 * The market `aTrade(token)` trades on unless told otherwise: the same address for the same token
 * every time (in the token's style, base58 or 0x), so a test states it once with homeMarket().
 */
export function marketOf(token: string): string {
  const digest = createHash('sha256').update(`market of ${token}`).digest();
  if (token.startsWith('0x')) return '0x' + digest.subarray(0, 20).toString('hex');
  return [...digest.subarray(0, 32)].map((b) => B58[b % 58]).join('') + 'Mkt' + 'T'.repeat(9);
}

/**
 * The record of `marketOf(token)`: the market a token's default trades name. It has no liquidity
 * unless told, so it adds nothing to its token's liquidity (the sum over its markets).
 */
export const homeMarket = (token: string, over: Partial<MarketRecord> = {}): MarketRecord =>
  aMarket(token, { address: marketOf(token), liquidityUsd: 0, ...over });

/** A token record followed by its home market's: what a batch of its default trades needs first. */
export const withMarket = (token: TokenRecord): [TokenRecord, MarketRecord] => [token, homeMarket(token.address)];

let sig = 0;
export const aTrade = (token: string, over: Partial<TradeRecord> = {}): TradeRecord => ({
  type: 'trade',
  token,
  market: over.market ?? marketOf(token),
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
