/**
 * The events and calls the indexer reads, and their decoding from raw logs (docs/indexer.md, What
 * is indexed): Uniswap V2 `PairCreated`, `Swap`, `Sync`; Uniswap V3 `PoolCreated`, `Swap`,
 * `Initialize`; ERC-20 `Transfer` and WETH9 `Deposit` / `Withdrawal`. Topic hashes come from viem;
 * the words are read by position, as the ABI lays them out, which costs far less than a generic
 * decoder on the tens of thousands of logs of a backfill.
 */
import { toEventSelector, toFunctionSelector } from 'viem';
import type { RawLog } from './rpc.js';

export const TOPIC = {
  pairCreated: toEventSelector('PairCreated(address,address,address,uint256)'),
  poolCreated: toEventSelector('PoolCreated(address,address,uint24,int24,address)'),
  swapV2: toEventSelector('Swap(address,uint256,uint256,uint256,uint256,address)'),
  sync: toEventSelector('Sync(uint112,uint112)'),
  swapV3: toEventSelector('Swap(address,address,int256,int256,uint160,uint128,int24)'),
  initialize: toEventSelector('Initialize(uint160,int24)'),
  transfer: toEventSelector('Transfer(address,address,uint256)'),
  deposit: toEventSelector('Deposit(address,uint256)'),
  withdrawal: toEventSelector('Withdrawal(address,uint256)'),
} as const;

export const CALL = {
  decimals: toFunctionSelector('decimals()'),
  symbol: toFunctionSelector('symbol()'),
  name: toFunctionSelector('name()'),
  totalSupply: toFunctionSelector('totalSupply()'),
  balanceOf: toFunctionSelector('balanceOf(address)'),
  getReserves: toFunctionSelector('getReserves()'),
  slot0: toFunctionSelector('slot0()'),
} as const;

/** `balanceOf(owner)` call data. */
export const balanceOfData = (owner: string): string => CALL.balanceOf + owner.slice(2).toLowerCase().padStart(64, '0');

/** The 32-byte word `i` of hex data (0x-prefixed), as an unsigned bigint; 0n past the end. */
export function word(data: string, i: number): bigint {
  const w = data.slice(2 + i * 64, 2 + (i + 1) * 64);
  return w.length === 0 ? 0n : BigInt(`0x${w}`);
}

const signed = (v: bigint): bigint => BigInt.asIntN(256, v);
/** An address from a topic or word (its low 20 bytes), lower-cased. */
export const addressOf = (w: string): string => `0x${w.slice(-40).toLowerCase()}`;
const wordAddress = (data: string, i: number): string => `0x${data.slice(2 + i * 64 + 24, 2 + (i + 1) * 64).toLowerCase()}`;

export const num = (h: string): number => Number.parseInt(h, 16);

/** A log's place in chain order. */
export type LogPlace = { block: number; logIndex: number; tx: string; blockHash: string };
export const placeOf = (l: RawLog): LogPlace => ({
  block: num(l.blockNumber),
  logIndex: num(l.logIndex),
  tx: l.transactionHash.toLowerCase(),
  blockHash: l.blockHash.toLowerCase(),
});

export type PoolCreated = { pool: string; token0: string; token1: string };

/** A factory's pool creation (V2 PairCreated or V3 PoolCreated); null for other logs. */
export function decodeCreated(l: RawLog): PoolCreated | null {
  const t = l.topics;
  if (t[0] === TOPIC.pairCreated && t.length === 3) return { pool: wordAddress(l.data, 0), token0: addressOf(t[1]!), token1: addressOf(t[2]!) };
  if (t[0] === TOPIC.poolCreated && t.length === 4) return { pool: wordAddress(l.data, 1), token0: addressOf(t[1]!), token1: addressOf(t[2]!) };
  return null;
}

export type PoolEvent =
  | { kind: 'swapV2'; amount0In: bigint; amount1In: bigint; amount0Out: bigint; amount1Out: bigint }
  | { kind: 'sync'; reserve0: bigint; reserve1: bigint }
  | { kind: 'swapV3'; amount0: bigint; amount1: bigint; sqrtPriceX96: bigint }
  | { kind: 'initialize'; sqrtPriceX96: bigint };

/** A pool's event; null for logs the indexer does not read. */
export function decodePoolEvent(l: RawLog): PoolEvent | null {
  const t0 = l.topics[0];
  const d = l.data;
  if (t0 === TOPIC.swapV2 && d.length >= 2 + 4 * 64)
    return { kind: 'swapV2', amount0In: word(d, 0), amount1In: word(d, 1), amount0Out: word(d, 2), amount1Out: word(d, 3) };
  if (t0 === TOPIC.sync && d.length >= 2 + 2 * 64) return { kind: 'sync', reserve0: word(d, 0), reserve1: word(d, 1) };
  if (t0 === TOPIC.swapV3 && d.length >= 2 + 5 * 64)
    return { kind: 'swapV3', amount0: signed(word(d, 0)), amount1: signed(word(d, 1)), sqrtPriceX96: word(d, 2) };
  if (t0 === TOPIC.initialize && d.length >= 2 + 2 * 64) return { kind: 'initialize', sqrtPriceX96: word(d, 0) };
  return null;
}

export type TokenMove =
  | { kind: 'transfer'; from: string; to: string; value: bigint }
  | { kind: 'deposit'; to: string; value: bigint }
  | { kind: 'withdrawal'; from: string; value: bigint };

/** A token's balance move; null for other logs (an ERC-721 Transfer has its value in a topic: skipped). */
export function decodeMove(l: RawLog): TokenMove | null {
  const t = l.topics;
  if (t[0] === TOPIC.transfer && t.length === 3 && l.data.length >= 66)
    return { kind: 'transfer', from: addressOf(t[1]!), to: addressOf(t[2]!), value: word(l.data, 0) };
  if (t[0] === TOPIC.deposit && t.length === 2 && l.data.length >= 66) return { kind: 'deposit', to: addressOf(t[1]!), value: word(l.data, 0) };
  if (t[0] === TOPIC.withdrawal && t.length === 2 && l.data.length >= 66) return { kind: 'withdrawal', from: addressOf(t[1]!), value: word(l.data, 0) };
  return null;
}
