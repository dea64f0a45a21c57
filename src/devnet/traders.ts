/**
 * Simulated traders for the devnet and the benchmark: each step a trader (seeded choice) swaps a
 * modest random amount along one of the world's routes, through Router02 or SwapRouter, single
 * pool or multi-hop, in both directions. Amounts stay small against the pools so prices wander
 * rather than drain.
 */
import { parseUnits, type Address, type Hex } from 'viem';
import type { SendOptions } from './chain.js';
import { swapV2, swapV2FromEth, swapV3 } from './dex.js';
import { DECIMALS, type World, type WorldTokens } from './world.js';

type Route = { kind: 'v2' | 'v2-eth' | 'v3'; path: (keyof WorldTokens)[]; fees?: number[]; /** largest amount in, whole units of path[0] */ max: number };

/** Every route a trader may take; the first token of the path is spent. */
export const ROUTES: Route[] = [
  { kind: 'v2', path: ['usdc', 'weth'], max: 20_000 },
  { kind: 'v2', path: ['weth', 'usdc'], max: 5 },
  { kind: 'v2', path: ['weth', 'alpha'], max: 2 },
  { kind: 'v2', path: ['alpha', 'weth'], max: 5_000 },
  { kind: 'v2', path: ['usdc', 'weth', 'alpha'], max: 5_000 },
  { kind: 'v2', path: ['alpha', 'weth', 'usdc'], max: 5_000 },
  { kind: 'v2', path: ['usdc', 'beta'], max: 2_000 },
  { kind: 'v2', path: ['beta', 'usdc'], max: 50_000 },
  { kind: 'v2', path: ['usdc', 'bytes'], max: 1_000 },
  { kind: 'v2', path: ['bytes', 'usdc'], max: 5_000 },
  { kind: 'v2-eth', path: ['weth', 'anon'], max: 0.2 },
  { kind: 'v2', path: ['anon', 'weth'], max: 5_000 },
  { kind: 'v3', path: ['usdc', 'gamma'], fees: [3000], max: 5_000 },
  { kind: 'v3', path: ['gamma', 'usdc'], fees: [3000], max: 2_000 },
  { kind: 'v3', path: ['weth', 'gamma', 'usdc'], fees: [500, 3000], max: 1 },
  { kind: 'v3', path: ['usdc', 'gamma', 'weth'], fees: [3000, 500], max: 3_000 },
];

// The seeded generator is the demo data's (src/domain/demo-model.ts): the same seed, the same traders.
export { seededRandom } from '../domain/demo-model.js';

/** Sends one random swap from `trader` (default: a random one); answers its transaction hash. */
export function randomSwap(world: World, random: () => number, opts?: SendOptions, from?: Address): Promise<Hex> {
  const trader = from ?? (world.traders[Math.floor(random() * world.traders.length)] as Address);
  const route = ROUTES[Math.floor(random() * ROUTES.length)] as Route;
  const first = route.path[0] as keyof WorldTokens;
  // At least a hundredth of the largest amount, at most 6 significant decimals.
  const whole = route.max * (0.01 + 0.99 * random());
  const amountIn = parseUnits(whole.toFixed(Math.min(6, DECIMALS[first])), DECIMALS[first]);
  const path = route.path.map((k) => world.tokens[k]);
  switch (route.kind) {
    case 'v2':
      return swapV2(world.chain, world.dex, trader, path, amountIn, opts);
    case 'v2-eth':
      return swapV2FromEth(world.chain, world.dex, trader, path, amountIn, opts);
    case 'v3':
      return swapV3(world.chain, world.dex, trader, path, route.fees ?? [], amountIn, opts);
  }
}
