/**
 * The devnet's market, shared by `npm run devnet`, the tests' scenario and the benchmark: the
 * Uniswap contracts, USDC (6 decimals), WETH and tokens of 18, 9 and 6 decimals, one answering
 * bytes32 metadata, one whose symbol()/name() revert and one whose decimals() reverts; V2 pairs
 * (WETH/USDC is the reference pool that prices WETH), V3 pools, a pair with no quote token, and
 * traders holding every token with the routers approved. Amounts are raw units (bigint).
 */
import { parseEther, parseUnits, type Address } from 'viem';
import type { ChainIndexerConfig } from '../indexer/evm/config.js';
import type { DevChain } from './chain.js';
import { deployToken, deployUniswap, type UniswapDeployment } from './deploy.js';
import { addV2Liquidity, addV3Pool, approveRouters, erc20Abi, wethAbi } from './dex.js';

export type WorldTokens = { usdc: Address; weth: Address; alpha: Address; beta: Address; gamma: Address; bytes: Address; anon: Address; nodec: Address };
export type WorldPools = {
  /** V2 WETH/USDC: the reference pool (`usdPool`) of WETH, and a market of WETH. */
  wethUsdc: Address;
  alphaWeth: Address;
  betaUsdc: Address;
  bytesUsdc: Address;
  anonWeth: Address;
  nodecUsdc: Address;
  /** V2 ALPHA/BETA: holds no quote token, so it is no market. */
  alphaBeta: Address;
  /** V3, fee 0.3 % */
  gammaUsdc: Address;
  /** V3, fee 0.05 % */
  gammaWeth: Address;
};
export type World = { chain: DevChain; dex: UniswapDeployment; tokens: WorldTokens; pools: WorldPools; deployer: Address; traders: Address[] };

export const DECIMALS = { usdc: 6, weth: 18, alpha: 18, beta: 9, gamma: 6, bytes: 18, anon: 18, nodec: 18 } as const;

/** Deploys the whole market from dev account 0; the other dev accounts become traders. Needs automine. */
export async function buildWorld(chain: DevChain, opts: { traders?: number } = {}): Promise<World> {
  const deployer = chain.accounts[0] as Address;
  const traders = chain.accounts.slice(1, 1 + (opts.traders ?? chain.accounts.length - 1));
  const dex = await deployUniswap(chain, deployer);
  const usdc = await deployToken(chain, deployer, { kind: 'string', name: 'USD Coin', symbol: 'USDC', decimals: 6 });
  const alpha = await deployToken(chain, deployer, { kind: 'string', name: 'Alpha Token', symbol: 'ALPHA', decimals: 18 });
  const beta = await deployToken(chain, deployer, { kind: 'string', name: 'Beta Token', symbol: 'BETA', decimals: 9 });
  const gamma = await deployToken(chain, deployer, { kind: 'string', name: 'Gamma Token', symbol: 'GAMMA', decimals: 6 });
  const bytes = await deployToken(chain, deployer, { kind: 'bytes32', name: 'Bytes Token', symbol: 'BYTES', decimals: 18 });
  const anon = await deployToken(chain, deployer, { kind: 'no-metadata', decimals: 18 });
  const nodec = await deployToken(chain, deployer, { kind: 'no-decimals' });
  const weth = dex.weth;
  const tokens: WorldTokens = { usdc, weth, alpha, beta, gamma, bytes, anon, nodec };
  const minted = [usdc, alpha, beta, gamma, bytes, anon, nodec];

  const u = (v: string, d: number): bigint => parseUnits(v, d);
  for (const t of minted) await chain.send(deployer, t, erc20Abi, 'mint', [deployer, u('1000000000', decimalsOf(tokens, t))]);
  await chain.send(deployer, weth, wethAbi, 'deposit', [], { value: parseEther('2000') });
  await approveRouters(chain, dex, deployer, [...minted, weth]);

  // WETH/USDC first, so every later pool naming WETH comes after the one that makes it a token.
  const wethUsdc = await addV2Liquidity(chain, dex, deployer, weth, usdc, parseEther('500'), u('1500000', 6));
  const alphaWeth = await addV2Liquidity(chain, dex, deployer, alpha, weth, u('1000000', 18), parseEther('200'));
  const betaUsdc = await addV2Liquidity(chain, dex, deployer, beta, usdc, u('10000000', 9), u('250000', 6));
  const bytesUsdc = await addV2Liquidity(chain, dex, deployer, bytes, usdc, u('1000000', 18), u('100000', 6));
  const anonWeth = await addV2Liquidity(chain, dex, deployer, anon, weth, u('1000000', 18), parseEther('10'));
  const nodecUsdc = await addV2Liquidity(chain, dex, deployer, nodec, usdc, u('1000000', 18), u('50000', 6));
  const gammaUsdc = await addV3Pool(chain, dex, deployer, gamma, usdc, 3000, u('1000000', 6), u('2000000', 6));
  const gammaWeth = await addV3Pool(chain, dex, deployer, gamma, weth, 500, u('150000', 6), parseEther('100'));
  const alphaBeta = await addV2Liquidity(chain, dex, deployer, alpha, beta, u('100000', 18), u('2400000', 9));
  const pools: WorldPools = { wethUsdc, alphaWeth, betaUsdc, bytesUsdc, anonWeth, nodecUsdc, alphaBeta, gammaUsdc, gammaWeth };

  for (const trader of traders) {
    for (const t of minted) await chain.send(deployer, t, erc20Abi, 'transfer', [trader, u('1000000', decimalsOf(tokens, t))]);
    await chain.send(trader, weth, wethAbi, 'deposit', [], { value: parseEther('100') });
    await approveRouters(chain, dex, trader, [...minted, weth]);
  }
  return { chain, dex, tokens, pools, deployer, traders };
}

function decimalsOf(tokens: WorldTokens, t: Address): number {
  const key = (Object.keys(tokens) as (keyof WorldTokens)[]).find((k) => tokens[k] === t);
  return key === undefined ? 18 : DECIMALS[key];
}

/** One chain of the indexer file: the indexer's own config type (docs/indexer.md). */
export type IndexerFileChain = ChainIndexerConfig;

/** The world's indexer config (docs/indexer.md): USDC at $1, WETH priced by the V2 WETH/USDC pool. */
export function worldIndexerConfig(world: World, opts: Partial<IndexerFileChain> & { chain: string; rpcUrl: string }): IndexerFileChain {
  return {
    wsUrl: null,
    pollMs: 1000,
    startBlock: 0,
    confirmations: 0,
    reorgDepth: 64,
    maxBlockRange: 2000,
    requestsPerSecond: 1000,
    dexes: [
      { name: 'uniswap-v2', protocol: 'uniswap-v2', factory: world.dex.v2Factory },
      { name: 'uniswap-v3', protocol: 'uniswap-v3', factory: world.dex.v3Factory },
    ],
    quotes: [
      { address: world.tokens.usdc, usd: 1 },
      { address: world.tokens.weth, usdPool: world.pools.wethUsdc },
    ],
    holders: true,
    ...opts,
  };
}
