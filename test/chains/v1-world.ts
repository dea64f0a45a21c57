/**
 * The world of the /v1 chain tests: a deployment of solana (the default), base and ethereum,
 * where ONE 0x address is a token on base and a different token on ethereum (other symbol, prices,
 * trades, holders), both traded on one market address, and a solana token beside them. Every
 * figure is chosen so that an answer for the wrong chain differs from the right one.
 */
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aHolder, aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';

export const NOW = 1_700_000_000;
export const CHAINS = 'solana,base,ethereum';
/** The one 0x address of a token on base and another on ethereum. */
export const X = '0x4200000000000000000000000000000000000006';
/** The one market address of both (a pool on each chain). */
export const M = '0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640';
/** A wallet (plain on every chain). */
export const W = '0x1111111111111111111111111111111111111111';
/** The quote token of both markets (stays plain in answers: quoteAddress). */
export const Q = '0xdac17f958d2ee523a2206206994597c13d831ec7';

export type World = { t: TestApp; sol: string; solMarket: string };

/** An app on CHAINS (or `env`) holding the world; trades are before NOW (the clock). */
export async function chainWorld(env: Record<string, string> = { CHAINS }): Promise<World> {
  const t = makeTestApp({ env });
  const sol = anAddress('sol');
  const solMarket = anAddress('solmkt');
  const on = (chain: string) => ({ chain });
  await t.ingest([
    {
      ...aToken({ address: X, symbol: 'BTK', name: 'Base Token', decimals: 18, totalSupply: 1000, circulatingSupply: 500, createdAt: NOW - 5000 }),
      ...on('base'),
    },
    {
      ...aToken({ address: X, symbol: 'ETK', name: 'Ether Token', decimals: 6, totalSupply: 2000, circulatingSupply: 1000, createdAt: NOW - 4000 }),
      ...on('ethereum'),
    },
    aToken({ address: sol, symbol: 'STK', name: 'Sol Token', createdAt: NOW - 3000 }),
    { ...aMarket(X, { address: M, quoteAddress: Q, quoteSymbol: 'USDT', dex: 'aerodrome', liquidityUsd: 700, createdAt: NOW - 4900 }), ...on('base') },
    { ...aMarket(X, { address: M, quoteAddress: Q, quoteSymbol: 'USDT', dex: 'uniswap', liquidityUsd: 900, createdAt: NOW - 3900 }), ...on('ethereum') },
    aMarket(sol, { address: solMarket, liquidityUsd: 100, createdAt: NOW - 2900 }),
  ]);
  await t.ingest([
    { ...aTrade(X, { market: M, signature: 'b1', blockTime: NOW - 600, priceUsd: 2, volumeUsd: 20, amount: 10, quoteAmount: 20, wallet: W }), ...on('base') },
    { ...aTrade(X, { market: M, signature: 'b2', blockTime: NOW - 500, priceUsd: 2.5, volumeUsd: 25, amount: 10, quoteAmount: 25, wallet: W }), ...on('base') },
    {
      ...aTrade(X, { market: M, signature: 'e1', blockTime: NOW - 400, priceUsd: 3, volumeUsd: 30, amount: 10, quoteAmount: 30, side: 'sell' }),
      ...on('ethereum'),
    },
    {
      ...aTrade(X, { market: M, signature: 'e2', blockTime: NOW - 300, priceUsd: 3.5, volumeUsd: 35, amount: 10, quoteAmount: 35, side: 'sell' }),
      ...on('ethereum'),
    },
    {
      ...aTrade(X, { market: M, signature: 'e3', blockTime: NOW - 200, priceUsd: 4, volumeUsd: 40, amount: 10, quoteAmount: 40, side: 'sell' }),
      ...on('ethereum'),
    },
    aTrade(sol, { market: solMarket, signature: 's1', blockTime: NOW - 100, priceUsd: 1, volumeUsd: 5 }),
    { ...aHolder(X, { owner: W, amount: 100 }), ...on('base') },
    { ...aHolder(X, { owner: W, amount: 300 }), ...on('ethereum') },
    { ...aHolder(X, { owner: Q, amount: 200 }), ...on('ethereum') },
  ]);
  return { t, sol, solMarket };
}
