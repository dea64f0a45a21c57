/**
 * Uniswap V2 and V3 swaps as trades (docs/indexer.md, How numbers are computed): which side of a
 * pool is the quote, the signed base and quote flows of one `Swap` log, and the trade's side,
 * amounts and USD figures. Raw amounts are bigints; only the final figures become numbers.
 */

/** A pool's two tokens, in the pool's own order (token0 < token1). */
export type PoolTokens = { token0: string; token1: string };

/** Which token of a pool is the quote: the one listed first in `quotes`; null when neither is listed. */
export function chooseQuote(pool: PoolTokens, quotes: readonly string[]): { base: string; quote: string; baseIs0: boolean } | null {
  const i0 = quotes.indexOf(pool.token0);
  const i1 = quotes.indexOf(pool.token1);
  if (i0 < 0 && i1 < 0) return null;
  // token1 quotes when token0 is not listed, or when token1 is listed before it.
  const quoteIs1 = i0 < 0 || (i1 >= 0 && i1 < i0);
  return quoteIs1 ? { base: pool.token0, quote: pool.token1, baseIs0: true } : { base: pool.token1, quote: pool.token0, baseIs0: false };
}

/** A V2 `Swap(sender, amount0In, amount1In, amount0Out, amount1Out, to)`'s amounts. */
export type V2Swap = { amount0In: bigint; amount1In: bigint; amount0Out: bigint; amount1Out: bigint };
/** A V3 `Swap(sender, recipient, amount0, amount1, sqrtPriceX96, liquidity, tick)`'s signed pool deltas. */
export type V3Swap = { amount0: bigint; amount1: bigint };

/** What the taker bought of the base (baseNet > 0: bought) and paid of the quote (quoteNet > 0: paid in). */
export type SwapFlow = { baseNet: bigint; quoteNet: bigint };

/** V2: baseNet = baseOut - baseIn, quoteNet = quoteIn - quoteOut. */
export function v2Flow(s: V2Swap, baseIs0: boolean): SwapFlow {
  return baseIs0
    ? { baseNet: s.amount0Out - s.amount0In, quoteNet: s.amount1In - s.amount1Out }
    : { baseNet: s.amount1Out - s.amount1In, quoteNet: s.amount0In - s.amount0Out };
}

/** V3: the log's deltas are the pool's, so baseNet = -amountBase and quoteNet = amountQuote. */
export function v3Flow(s: V3Swap, baseIs0: boolean): SwapFlow {
  return baseIs0 ? { baseNet: -s.amount0, quoteNet: s.amount1 } : { baseNet: -s.amount1, quoteNet: s.amount0 };
}

const abs = (v: bigint): bigint => (v < 0n ? -v : v);

/**
 * A raw amount in whole tokens. Splitting off the integer part keeps the result within one
 * rounding of the exact quotient even where the raw amount is beyond 2^53.
 */
export function toUnits(raw: bigint, decimals: number): number {
  const scale = 10n ** BigInt(decimals);
  const whole = raw / scale;
  const frac = raw % scale;
  return Number(whole) + Number(frac) / Number(scale);
}

export type SwapTrade = { side: 'buy' | 'sell'; amount: number; quoteAmount: number };

/** The trade of a flow; null when either side moved nothing (no trade: counted by the caller). */
export function swapTrade(flow: SwapFlow, baseDecimals: number, quoteDecimals: number): SwapTrade | null {
  if (flow.baseNet === 0n || flow.quoteNet === 0n) return null;
  const amount = toUnits(abs(flow.baseNet), baseDecimals);
  const quoteAmount = toUnits(abs(flow.quoteNet), quoteDecimals);
  if (amount === 0 || quoteAmount === 0) return null;
  return { side: flow.baseNet > 0n ? 'buy' : 'sell', amount, quoteAmount };
}

/** priceUsd = quoteAmount / amount x quoteUsd; volumeUsd = quoteAmount x quoteUsd. */
export function usdFigures(t: SwapTrade, quoteUsd: number): { priceUsd: number; volumeUsd: number } {
  return { priceUsd: (t.quoteAmount / t.amount) * quoteUsd, volumeUsd: t.quoteAmount * quoteUsd };
}
