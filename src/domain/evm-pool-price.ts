/**
 * Pool prices for USD references (docs/indexer.md, USD prices): the price of one token of a
 * Uniswap pool in the other, from V2 reserves or a V3 `sqrtPriceX96`, and the USD value of a
 * `usdPool` quote and of a market's liquidity. Pure: the indexer keeps each pool's state in chain
 * order and asks here.
 */
import { toUnits } from './evm-swap.js';

/** A pool's state: V2 reserves, or a V3 square-root price (Q64.96). */
export type PoolState = { kind: 'v2'; reserve0: bigint; reserve1: bigint } | { kind: 'v3'; sqrtPriceX96: bigint };

const Q96 = 2 ** 96;

/**
 * The price of token0 in token1 (whole tokens): V2 (reserve1 / 10^d1) / (reserve0 / 10^d0), V3
 * sqrtPriceX96^2 / 2^192 x 10^(d0 - d1). Null when the pool holds nothing to price with.
 */
export function price0In1(state: PoolState, decimals0: number, decimals1: number): number | null {
  if (state.kind === 'v2') {
    if (state.reserve0 === 0n || state.reserve1 === 0n) return null;
    return toUnits(state.reserve1, decimals1) / toUnits(state.reserve0, decimals0);
  }
  if (state.sqrtPriceX96 === 0n) return null;
  const r = Number(state.sqrtPriceX96) / Q96;
  return r * r * 10 ** (decimals0 - decimals1);
}

/**
 * The USD price of `token` held in a reference pool whose other side is worth `otherUsd` a whole
 * token; null when the pool cannot price it.
 */
export function referenceUsd(state: PoolState, tokenIs0: boolean, decimals0: number, decimals1: number, otherUsd: number): number | null {
  const p = price0In1(state, decimals0, decimals1);
  if (p === null || !Number.isFinite(p) || p <= 0) return null;
  return (tokenIs0 ? p : 1 / p) * otherUsd;
}

/** liquidityUsd: the pool's base at the base's USD price plus its quote at the quote's. */
export function liquidityUsd(baseUnits: number, baseUsd: number, quoteUnits: number, quoteUsd: number): number {
  const v = baseUnits * baseUsd + quoteUnits * quoteUsd;
  return Number.isFinite(v) && v > 0 ? v : 0;
}
