/**
 * Deploys the Uniswap V2 and V3 contracts and the test tokens on a dev node. The routers'
 * init-code hashes are checked first (src/devnet/uniswap.ts); tests also prove them by swapping.
 */
import { stringToHex, zeroAddress, type Address } from 'viem';
import type { DevChain } from './chain.js';
import { tokenContracts } from './compile.js';
import { initCodeHashes, uniswap } from './uniswap.js';

export type UniswapDeployment = {
  weth: Address;
  v2Factory: Address;
  v2Router: Address;
  v3Factory: Address;
  positionManager: Address;
  swapRouter: Address;
  /** Block of the first factory's deployment: the indexers read factories from it. */
  firstBlock: number;
};

export type TokenKind =
  | { kind: 'string'; name: string; symbol: string; decimals: number }
  | { kind: 'bytes32'; name: string; symbol: string; decimals: number }
  | { kind: 'no-metadata'; decimals: number }
  | { kind: 'no-decimals' };

/** WETH9, both factories, Router02, NonfungiblePositionManager and SwapRouter, deployed by `from`. */
export async function deployUniswap(chain: DevChain, from: Address): Promise<UniswapDeployment> {
  const check = initCodeHashes();
  if (!check.v2RouterHasIt || !check.v3PositionManagerHasIt || !check.v3SwapRouterHasIt) {
    throw new Error(`the routers' init-code hashes do not match the pair's and pool's creation code: ${JSON.stringify(check)}`);
  }
  const weth = await chain.deploy(from, uniswap.weth9);
  const v2Factory = await chain.deploy(from, uniswap.v2Factory, [from]);
  // Deployments wait for their receipts, so the node mines each one before the next is sent.
  const firstBlock = await chain.blockNumber();
  const v2Router = await chain.deploy(from, uniswap.v2Router, [v2Factory, weth]);
  const v3Factory = await chain.deploy(from, uniswap.v3Factory);
  // The position manager's token descriptor only serves tokenURI(), which nothing here calls.
  const positionManager = await chain.deploy(from, uniswap.positionManager, [v3Factory, weth, zeroAddress]);
  const swapRouter = await chain.deploy(from, uniswap.swapRouter, [v3Factory, weth]);
  return { weth, v2Factory, v2Router, v3Factory, positionManager, swapRouter, firstBlock };
}

/** Deploys one test token (src/devnet/contracts/Tokens.sol). */
export function deployToken(chain: DevChain, from: Address, token: TokenKind): Promise<Address> {
  const c = tokenContracts();
  switch (token.kind) {
    case 'string':
      return chain.deploy(from, c.TestToken, [token.name, token.symbol, token.decimals]);
    case 'bytes32':
      return chain.deploy(from, c.Bytes32Token, [stringToHex(token.name, { size: 32 }), stringToHex(token.symbol, { size: 32 }), token.decimals]);
    case 'no-metadata':
      return chain.deploy(from, c.NoMetadataToken, [token.decimals]);
    case 'no-decimals':
      return chain.deploy(from, c.NoDecimalsToken);
  }
}
