/**
 * Liquidity and swaps through the real Uniswap periphery: V2 pairs made and funded by Router02,
 * V3 pools made, initialised and funded (full range) by the NonfungiblePositionManager, swaps by
 * Router02 and SwapRouter, single pool or multi-hop (one Swap log per pool crossed).
 */
import { encodePacked, parseAbi, type Address, type Hex } from 'viem';
import type { DevChain, SendOptions, TxRequest } from './chain.js';
import type { UniswapDeployment } from './deploy.js';
import { uniswap } from './uniswap.js';

export const erc20Abi = parseAbi([
  'function approve(address spender, uint256 value) returns (bool)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function mint(address to, uint256 value)',
  'function burn(uint256 value)',
  'function balanceOf(address owner) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
]);
export const wethAbi = parseAbi(['function deposit() payable', 'function withdraw(uint256 wad)']);

const MAX_UINT = 2n ** 256n - 1n;
const DEADLINE = 2n ** 40n;
const TICK_SPACING: Record<number, number> = { 100: 1, 500: 10, 3000: 60, 10000: 200 };

/** Lets the V2 router, the position manager and the swap router spend `owner`'s `tokens`. */
export async function approveRouters(chain: DevChain, d: UniswapDeployment, owner: Address, tokens: readonly Address[]): Promise<void> {
  for (const token of tokens) {
    for (const spender of [d.v2Router, d.positionManager, d.swapRouter]) await chain.send(owner, token, erc20Abi, 'approve', [spender, MAX_UINT]);
  }
}

/** Adds liquidity to the V2 pair of two tokens (made by the router when new); answers the pair. */
export async function addV2Liquidity(
  chain: DevChain,
  d: UniswapDeployment,
  from: Address,
  a: Address,
  b: Address,
  amountA: bigint,
  amountB: bigint,
): Promise<Address> {
  await chain.send(from, d.v2Router, uniswap.v2Router.abi, 'addLiquidity', [a, b, amountA, amountB, 0n, 0n, from, DEADLINE], { gas: 5_000_000n });
  return chain.read<Address>(d.v2Factory, uniswap.v2Factory.abi, 'getPair', [a, b]);
}

/** Integer square root (Newton), for sqrtPriceX96. */
export function sqrtBig(n: bigint): bigint {
  if (n < 2n) return n;
  let x = n;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + n / x) / 2n;
  }
  return x;
}

/**
 * Makes the V3 pool of two tokens at `fee`, initialised at the price amountB/amountA (raw units),
 * and adds full-range liquidity of about those amounts; answers the pool.
 */
export async function addV3Pool(
  chain: DevChain,
  d: UniswapDeployment,
  from: Address,
  a: Address,
  b: Address,
  fee: number,
  amountA: bigint,
  amountB: bigint,
): Promise<Address> {
  const [token0, token1, amount0, amount1] = a.toLowerCase() < b.toLowerCase() ? [a, b, amountA, amountB] : [b, a, amountB, amountA];
  const sqrtPriceX96 = sqrtBig((amount1 << 192n) / amount0);
  await chain.send(from, d.positionManager, uniswap.positionManager.abi, 'createAndInitializePoolIfNecessary', [token0, token1, fee, sqrtPriceX96], {
    gas: 6_000_000n,
  });
  const spacing = TICK_SPACING[fee] ?? 60;
  const top = Math.floor(887272 / spacing) * spacing;
  const mint = {
    token0,
    token1,
    fee,
    tickLower: -top,
    tickUpper: top,
    amount0Desired: amount0,
    amount1Desired: amount1,
    amount0Min: 0n,
    amount1Min: 0n,
    recipient: from,
    deadline: DEADLINE,
  };
  await chain.send(from, d.positionManager, uniswap.positionManager.abi, 'mint', [mint], { gas: 2_000_000n });
  return chain.read<Address>(d.v3Factory, uniswap.v3Factory.abi, 'getPool', [token0, token1, fee]);
}

/** The transaction of swapV2, unsent (a replacement block's, for DevChain.reorg). */
export function swapV2Request(chain: DevChain, d: UniswapDeployment, from: Address, path: readonly Address[], amountIn: bigint): TxRequest {
  return chain.request(from, d.v2Router, uniswap.v2Router.abi, 'swapExactTokensForTokens', [amountIn, 0n, path, from, DEADLINE]);
}

/** Router02 swapExactTokensForTokens along `path` (one Swap log per pair crossed). */
export function swapV2(chain: DevChain, d: UniswapDeployment, from: Address, path: readonly Address[], amountIn: bigint, opts?: SendOptions): Promise<Hex> {
  return chain.send(from, d.v2Router, uniswap.v2Router.abi, 'swapExactTokensForTokens', [amountIn, 0n, path, from, DEADLINE], opts);
}

/** Router02 swapExactETHForTokens: ETH wrapped by the router (a WETH Deposit), then swapped along `path` (starting at WETH). */
export function swapV2FromEth(chain: DevChain, d: UniswapDeployment, from: Address, path: readonly Address[], value: bigint, opts?: SendOptions): Promise<Hex> {
  return chain.send(from, d.v2Router, uniswap.v2Router.abi, 'swapExactETHForTokens', [0n, path, from, DEADLINE], { ...opts, value });
}

/** Router02 swapExactTokensForETH: swapped along `path` (ending at WETH), unwrapped by the router (a WETH Withdrawal). */
export function swapV2ToEth(
  chain: DevChain,
  d: UniswapDeployment,
  from: Address,
  path: readonly Address[],
  amountIn: bigint,
  opts?: SendOptions,
): Promise<Hex> {
  return chain.send(from, d.v2Router, uniswap.v2Router.abi, 'swapExactTokensForETH', [amountIn, 0n, path, from, DEADLINE], opts);
}

/** SwapRouter exactInputSingle, or exactInput along `tokens` with `fees` between them (multi-hop). */
export function swapV3(
  chain: DevChain,
  d: UniswapDeployment,
  from: Address,
  tokens: readonly Address[],
  fees: readonly number[],
  amountIn: bigint,
  opts?: SendOptions,
): Promise<Hex> {
  const abi = uniswap.swapRouter.abi;
  if (tokens.length === 2) {
    const params = {
      tokenIn: tokens[0],
      tokenOut: tokens[1],
      fee: fees[0],
      recipient: from,
      deadline: DEADLINE,
      amountIn,
      amountOutMinimum: 0n,
      sqrtPriceLimitX96: 0n,
    };
    return chain.send(from, d.swapRouter, abi, 'exactInputSingle', [params], opts);
  }
  const types: ('address' | 'uint24')[] = [];
  const values: (Address | number)[] = [];
  tokens.forEach((t, i) => {
    types.push('address');
    values.push(t);
    if (i < fees.length) {
      types.push('uint24');
      values.push(fees[i] as number);
    }
  });
  const path = encodePacked(types, values);
  return chain.send(from, d.swapRouter, abi, 'exactInput', [{ path, recipient: from, deadline: DEADLINE, amountIn, amountOutMinimum: 0n }], opts);
}
