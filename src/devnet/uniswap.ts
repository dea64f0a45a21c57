/**
 * The real Uniswap contracts, from their published npm artifacts (@uniswap/v2-core,
 * v2-periphery, v3-core, v3-periphery): V2 Factory, Pair, Router02 and WETH9; V3 Factory, Pool,
 * NonfungiblePositionManager and SwapRouter. The routers find a pair or pool by CREATE2 with the
 * init-code hash compiled into them, so `initCodeHashes()` checks that hash against the keccak
 * of the pair's and pool's creation code: a mismatch would make every router swap revert.
 */
import { createRequire } from 'node:module';
import { keccak256, type Abi, type Hex } from 'viem';
import type { Compiled } from './compile.js';

const require = createRequire(import.meta.url);

type V2Artifact = { abi: Abi; bytecode?: string; evm?: { bytecode: { object: string } } };
type HardhatArtifact = { abi: Abi; bytecode: string };

function v2(path: string): Compiled {
  const a = require(path) as V2Artifact;
  const code = a.bytecode ?? a.evm?.bytecode.object ?? '';
  return { abi: a.abi, bytecode: (code.startsWith('0x') ? code : `0x${code}`) as Hex };
}

function v3(path: string): Compiled {
  const a = require(path) as HardhatArtifact;
  return { abi: a.abi, bytecode: a.bytecode as Hex };
}

export const uniswap = {
  v2Factory: v2('@uniswap/v2-core/build/UniswapV2Factory.json'),
  v2Pair: v2('@uniswap/v2-core/build/UniswapV2Pair.json'),
  v2Router: v2('@uniswap/v2-periphery/build/UniswapV2Router02.json'),
  weth9: v2('@uniswap/v2-periphery/build/WETH9.json'),
  v3Factory: v3('@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json'),
  v3Pool: v3('@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json'),
  positionManager: v3('@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json'),
  swapRouter: v3('@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json'),
};

export type InitCodeCheck = { v2PairHash: Hex; v2RouterHasIt: boolean; v3PoolHash: Hex; v3PositionManagerHasIt: boolean; v3SwapRouterHasIt: boolean };

/** The keccak of the pair's and pool's creation code, and whether each router's bytecode holds it. */
export function initCodeHashes(): InitCodeCheck {
  const v2PairHash = keccak256(uniswap.v2Pair.bytecode);
  const v3PoolHash = keccak256(uniswap.v3Pool.bytecode);
  const has = (c: Compiled, h: Hex): boolean => c.bytecode.toLowerCase().includes(h.slice(2).toLowerCase());
  return {
    v2PairHash,
    v2RouterHasIt: has(uniswap.v2Router, v2PairHash),
    v3PoolHash,
    v3PositionManagerHasIt: has(uniswap.positionManager, v3PoolHash),
    v3SwapRouterHasIt: has(uniswap.swapRouter, v3PoolHash),
  };
}
