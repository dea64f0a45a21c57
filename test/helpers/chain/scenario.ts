/**
 * The chain of issue 29's end-to-end tests, on a fresh anvil: the devnet's market (src/devnet/
 * world.ts), swaps before `startBlock` (not trades), then swaps through both routers from several
 * wallets in both directions, multi-hop swaps (two Swap logs in one transaction, one of them
 * moving the reference pool between them), ETH in and out through WETH (Deposit, Withdrawal), a
 * block of several swaps, swaps in the pool without a quote and the pool whose token has no
 * decimals, a mint and a burn to the dead address. Answers the section-17 indexer config for it.
 */
import { parseEther, parseUnits, type Address } from 'viem';
import { startAnvil, type Anvil } from '../../../src/devnet/anvil.js';
import { connectDevChain, type DevChain } from '../../../src/devnet/chain.js';
import { erc20Abi, swapV2, swapV2FromEth, swapV2ToEth, swapV3 } from '../../../src/devnet/dex.js';
import { buildWorld, worldIndexerConfig, type IndexerFileChain, type World } from '../../../src/devnet/world.js';

export { startAnvil, type Anvil } from '../../../src/devnet/anvil.js';

export const DEAD = '0x000000000000000000000000000000000000dEaD';

export type Scenario = {
  anvil: Anvil;
  chain: DevChain;
  world: World;
  /** The indexer config of the scenario against the node itself (point rpcUrl elsewhere for a proxy). */
  config: IndexerFileChain;
  /** First block whose swaps are trades: an empty block, after the swaps that must not be indexed. */
  startBlock: number;
  /** The newest block once the scenario is built. */
  endBlock: number;
  stop(): Promise<void>;
};

/** Starts anvil, builds the scenario and answers it; `stop()` ends the node. */
export async function buildScenario(opts: { chain?: string } = {}): Promise<Scenario> {
  const anvil = await startAnvil({ accounts: 6 });
  try {
    const chain = await connectDevChain(anvil.rpcUrl);
    const world = await buildWorld(chain, { traders: 4 });
    const startBlock = await playScenario(world);
    const endBlock = await chain.blockNumber();
    const config = worldIndexerConfig(world, { chain: opts.chain ?? 'devnet', rpcUrl: anvil.rpcUrl, startBlock });
    return { anvil, chain, world, config, startBlock, endBlock, stop: () => anvil.stop() };
  } catch (e) {
    await anvil.stop();
    throw e;
  }
}

/** Plays the swaps; answers the startBlock (an empty block between the early swaps and the rest). */
async function playScenario(world: World): Promise<number> {
  const { chain, dex, tokens: t } = world;
  const [w1, w2, w3, w4] = world.traders as [Address, Address, Address, Address];
  const u = parseUnits;

  // Before startBlock: the reference pool moves too, so its state at startBlock is not its first.
  await swapV2(chain, dex, w1, [t.alpha, t.weth], u('5000', 18));
  await swapV2(chain, dex, w2, [t.usdc, t.weth], u('30000', 6));
  await swapV3(chain, dex, w3, [t.usdc, t.gamma], [3000], u('1000', 6));
  await swapV2(chain, dex, w4, [t.beta, t.usdc], u('20000', 9));
  await chain.mine(1);
  const startBlock = await chain.blockNumber();

  // First swap after startBlock prices WETH from the reference pool's state at startBlock.
  await swapV2(chain, dex, w1, [t.weth, t.alpha], parseEther('1.5'));
  await swapV2(chain, dex, w2, [t.usdc, t.weth], u('45000', 6));
  await swapV2(chain, dex, w3, [t.alpha, t.weth], u('12345.678', 18));
  // Multi-hop: the ALPHA/WETH log comes before the WETH/USDC log that moves WETH's price.
  await swapV2(chain, dex, w1, [t.alpha, t.weth, t.usdc], u('20000', 18));
  // And the other way: WETH's price moves first, then ALPHA is bought with WETH.
  await swapV2(chain, dex, w2, [t.usdc, t.weth, t.alpha], u('7777', 6));
  await swapV2(chain, dex, w4, [t.usdc, t.beta], u('1234.5', 6));
  await swapV2(chain, dex, w3, [t.beta, t.usdc], u('98765.4321', 9));
  await swapV3(chain, dex, w4, [t.usdc, t.gamma], [3000], u('5000', 6));
  await swapV3(chain, dex, w1, [t.gamma, t.usdc], [3000], u('3210.5', 6));
  await swapV3(chain, dex, w2, [t.weth, t.gamma, t.usdc], [500, 3000], parseEther('2'));
  await swapV3(chain, dex, w3, [t.usdc, t.gamma, t.weth], [3000, 500], u('2500', 6));
  await swapV2(chain, dex, w4, [t.usdc, t.bytes], u('1000', 6));
  await swapV2(chain, dex, w1, [t.bytes, t.usdc], u('2000', 18));
  await swapV2FromEth(chain, dex, w2, [t.weth, t.anon], parseEther('0.25'));
  await swapV2ToEth(chain, dex, w2, [t.anon, t.weth], u('1000', 18));
  await swapV2(chain, dex, w3, [t.alpha, t.beta], u('500', 18));
  await swapV2(chain, dex, w4, [t.nodec, t.usdc], u('100', 18));
  await chain.send(w1, t.alpha, erc20Abi, 'transfer', [DEAD, u('1000', 18)]);
  await chain.send(w4, t.beta, erc20Abi, 'mint', [w4, u('55555', 9)]);
  await chain.send(w3, t.gamma, erc20Abi, 'burn', [u('10', 6)]);

  // One block of several swaps from several wallets: record numbers in log order.
  await chain.automine(false);
  const hashes = [
    await swapV2(chain, dex, w1, [t.usdc, t.weth], u('900', 6), { wait: false }),
    await swapV2(chain, dex, w2, [t.weth, t.alpha], parseEther('0.3'), { wait: false }),
    await swapV3(chain, dex, w3, [t.gamma, t.usdc], [3000], u('77', 6), { wait: false }),
    await swapV2(chain, dex, w4, [t.alpha, t.weth, t.usdc], u('3333', 18), { wait: false }),
  ];
  await chain.mine(1);
  await chain.automine(true);
  for (const h of hashes) await chain.receipt(h, 'batched swap');
  // A last swap in its own block after the batch.
  await swapV2(chain, dex, w3, [t.weth, t.usdc], parseEther('0.1'));
  return startBlock;
}
