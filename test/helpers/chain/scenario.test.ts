/**
 * The indexer tests' chain itself: the real Uniswap contracts deployed from their npm artifacts
 * (their routers' init-code hashes match the pair and pool code), the scenario covering issue 29's
 * cases, and the naive oracle's numbers checked against the node's own answers (router quotes,
 * reserves, balanceOf) rather than against the indexer. One anvil for the whole file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import { initCodeHashes, uniswap } from '../../../src/devnet/uniswap.js';
import { buildScenario, type Scenario } from './scenario.js';
import { Oracle, type Expected } from './oracle.js';

let s: Scenario;
let oracle: Oracle;
let e: Expected;

beforeAll(async () => {
  s = await buildScenario();
  oracle = new Oracle(s.anvil.rpcUrl);
  e = await oracle.expect(s.config, s.endBlock);
}, 120_000);

afterAll(async () => {
  await s?.stop();
});

const lc = (a: string): string => a.toLowerCase();

describe('the deployed Uniswap contracts', () => {
  it("hold the routers' init-code hashes of the pair and pool creation code (mainnet's own)", () => {
    const h = initCodeHashes();
    expect(h).toEqual({
      v2PairHash: '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f',
      v2RouterHasIt: true,
      v3PoolHash: '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54',
      v3PositionManagerHasIt: true,
      v3SwapRouterHasIt: true,
    });
  });

  it('lets Router02 find the pair by CREATE2 and quote it as the constant-product formula says', async () => {
    const { chain, world } = s;
    const [r0, r1] = await chain.read<[bigint, bigint, number]>(world.pools.wethUsdc, uniswap.v2Pair.abi, 'getReserves', [], BigInt(s.endBlock));
    const wethIs0 = lc(world.tokens.weth) < lc(world.tokens.usdc);
    const [rIn, rOut] = wethIs0 ? [r0, r1] : [r1, r0];
    const amounts = await chain.read<bigint[]>(
      world.dex.v2Router,
      uniswap.v2Router.abi,
      'getAmountsOut',
      [parseEther('1'), [world.tokens.weth, world.tokens.usdc]],
      BigInt(s.endBlock),
    );
    const x = parseEther('1') * 997n;
    expect(amounts[1]).toBe((x * rOut) / (rIn * 1000n + x));
  });
});

describe('the scenario', () => {
  it("covers issue 29's cases: wallets, sides, decimals, multi-hop, a busy block, skipped pools", () => {
    const t = s.world.tokens;
    expect(new Set(e.trades.map((x) => x.wallet)).size).toBe(4);
    expect(new Set(e.trades.map((x) => x.side))).toEqual(new Set(['buy', 'sell']));
    const decimalsOfTraded = new Set(e.trades.map((x) => e.tokens.find((k) => k.address === x.token)?.decimals));
    expect(decimalsOfTraded).toEqual(new Set([6, 9, 18]));
    const perTx = new Map<string, number>();
    for (const x of e.trades) perTx.set(x.signature, (perTx.get(x.signature) ?? 0) + 1);
    expect([...perTx.values()].filter((n) => n === 2).length).toBe(5);
    const perBlock = new Map<number, number>();
    for (const x of e.trades) perBlock.set(x.blockNumber, (perBlock.get(x.blockNumber) ?? 0) + 1);
    expect(Math.max(...perBlock.values())).toBe(5);
    expect(e.skipped).toEqual({ noQuotePools: [lc(s.world.pools.alphaBeta)], noDecimalsPools: [lc(s.world.pools.nodecUsdc)], zeroSwaps: 0 });
    expect(e.markets.map((m) => m.address).sort()).toEqual(
      [
        s.world.pools.wethUsdc,
        s.world.pools.alphaWeth,
        s.world.pools.betaUsdc,
        s.world.pools.bytesUsdc,
        s.world.pools.anonWeth,
        s.world.pools.gammaUsdc,
        s.world.pools.gammaWeth,
      ]
        .map(lc)
        .sort(),
    );
    expect(e.trades.filter((x) => x.market === lc(s.world.pools.gammaUsdc)).length).toBe(5);
    expect(e.tokens.map((k) => k.address).sort()).toEqual([t.weth, t.alpha, t.beta, t.gamma, t.bytes, t.anon].map(lc).sort());
    expect(e.trades.length).toBe(25);
  });

  it('has swaps before startBlock that are no trades, and an empty startBlock', async () => {
    const early = await oracle.logs(0, s.startBlock - 1, [s.world.pools.alphaWeth, s.world.pools.wethUsdc, s.world.pools.gammaUsdc, s.world.pools.betaUsdc]);
    const swapTopics = new Set([
      '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822',
      '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67',
    ]);
    expect(early.filter((l) => swapTopics.has(l.topics[0] as string)).length).toBe(4);
    expect(Math.min(...e.trades.map((x) => x.blockNumber))).toBe(s.startBlock + 1);
    expect((await oracle.logs(s.startBlock, s.startBlock)).length).toBe(0);
  });

  it('names tokens from string and bytes32 answers, and falls back where symbol() and name() revert', () => {
    const byAddress = new Map(e.tokens.map((k) => [k.address, k]));
    const t = s.world.tokens;
    expect(byAddress.get(lc(t.bytes))).toMatchObject({ symbol: 'BYTES', name: 'Bytes Token', decimals: 18 });
    const anon = lc(t.anon);
    expect(byAddress.get(anon)).toMatchObject({ symbol: anon.slice(2, 8).toUpperCase(), name: anon.slice(2, 8).toUpperCase() });
    expect(byAddress.get(lc(t.beta))).toMatchObject({ symbol: 'BETA', name: 'Beta Token', decimals: 9 });
    expect(byAddress.get(lc(t.weth))).toMatchObject({ symbol: 'WETH', name: 'Wrapped Ether', decimals: 18 });
    expect(byAddress.get(lc(t.alpha))?.circulatingSupply).toBe(1_000_000_000 - 1000);
    expect(byAddress.get(lc(t.beta))?.totalSupply).toBe(1_000_055_555);
    expect(byAddress.get(lc(t.gamma))?.totalSupply).toBe(999_999_990);
  });
});

describe('the naive oracle', () => {
  it('prices the first trade after startBlock by the reference pool state at startBlock and the router quote', async () => {
    const { chain, world } = s;
    const first = e.trades[0];
    const at = BigInt(s.startBlock);
    const amounts = await chain.read<bigint[]>(
      world.dex.v2Router,
      uniswap.v2Router.abi,
      'getAmountsOut',
      [parseEther('1.5'), [world.tokens.weth, world.tokens.alpha]],
      at,
    );
    const [r0, r1] = await chain.read<[bigint, bigint, number]>(world.pools.wethUsdc, uniswap.v2Pair.abi, 'getReserves', [], at);
    const [rWeth, rUsdc] = lc(world.tokens.weth) < lc(world.tokens.usdc) ? [r0, r1] : [r1, r0];
    const wethUsd = Number(rUsdc) / 1e6 / (Number(rWeth) / 1e18);
    const amount = Number(amounts[1]) / 1e18;
    expect(first).toMatchObject({
      token: lc(world.tokens.alpha),
      market: lc(world.pools.alphaWeth),
      side: 'buy',
      quoteAmount: 1.5,
      blockNumber: s.startBlock + 1,
    });
    expect(first?.amount).toBeCloseTo(amount, 9);
    expect(Math.abs((first?.priceUsd as number) / ((1.5 / amount) * wethUsd) - 1)).toBeLessThan(1e-12);
    expect(Math.abs((first?.volumeUsd as number) / (1.5 * wethUsd) - 1)).toBeLessThan(1e-12);
  });

  it('prices a multi-hop leg by the reference pool as it was before the leg that moves it', async () => {
    const { chain, world } = s;
    // ALPHA -> WETH -> USDC: the ALPHA/WETH leg comes first, priced with WETH before the WETH/USDC leg.
    const legs = e.trades.filter(
      (x) => x.signature === e.trades.find((y) => y.market === lc(world.pools.alphaWeth) && y.side === 'sell' && y.amount === 20000)?.signature,
    );
    expect(legs.map((x) => x.market)).toEqual([lc(world.pools.alphaWeth), lc(world.pools.wethUsdc)]);
    const block = BigInt((legs[0] as { blockNumber: number }).blockNumber - 1);
    const [r0, r1] = await chain.read<[bigint, bigint, number]>(world.pools.wethUsdc, uniswap.v2Pair.abi, 'getReserves', [], block);
    const [rWeth, rUsdc] = lc(world.tokens.weth) < lc(world.tokens.usdc) ? [r0, r1] : [r1, r0];
    const wethUsd = Number(rUsdc) / 1e6 / (Number(rWeth) / 1e18);
    const leg = legs[0] as { quoteAmount: number; volumeUsd: number };
    expect(Math.abs(leg.volumeUsd / (leg.quoteAmount * wethUsd) - 1)).toBeLessThan(1e-12);
  });

  it("folds holders to exactly each owner's balanceOf, WETH's deposits and withdrawals included", async () => {
    for (const h of e.holders) expect([h.token, h.owner, await oracle.balanceOf(h.token, h.owner, s.endBlock)]).toEqual([h.token, h.owner, h.raw]);
    const weth = e.holders.filter((h) => h.token === lc(s.world.tokens.weth)).map((h) => h.owner);
    for (const trader of s.world.traders) expect(weth).toContain(lc(trader));
    expect(e.holders.some((h) => h.owner === '0x000000000000000000000000000000000000dead' && h.token === lc(s.world.tokens.alpha))).toBe(true);
  });

  it('reads V2 liquidity from the last Sync, equal to getReserves now', async () => {
    const m = e.markets.find((x) => x.address === lc(s.world.pools.betaUsdc));
    const [r0, r1] = await s.chain.read<[bigint, bigint, number]>(s.world.pools.betaUsdc, uniswap.v2Pair.abi, 'getReserves', [], BigInt(s.endBlock));
    const [rBeta, rUsdc] = lc(s.world.tokens.beta) < lc(s.world.tokens.usdc) ? [r0, r1] : [r1, r0];
    const betaPrice = [...e.trades].reverse().find((x) => x.token === lc(s.world.tokens.beta))?.priceUsd as number;
    expect(Math.abs((m?.liquidityUsd as number) / (Number(rUsdc) / 1e6 + (Number(rBeta) / 1e9) * betaPrice) - 1)).toBeLessThan(1e-12);
  });
});
