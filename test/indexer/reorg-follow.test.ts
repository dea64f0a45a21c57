/**
 * The indexer follows reorgs (docs/indexer.md, Reorgs) on a real anvil node: random swaps and
 * random reorgs of depth 1 to reorgDepth (anvil_reorg with replacement swaps, and evm_snapshot /
 * evm_revert then new blocks) while it follows the head, every read of the store then equal to
 * the naive oracle's recomputation from the canonical chain (test/helpers/chain/compare.ts); a
 * token and its market first seen in orphaned blocks leave with them; a reorg deeper than
 * reorgDepth stops the chain (one error line, /healthz degraded, state stopped) with nothing
 * removed. One anvil for the file; each case indexes it afresh into its own store. Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseEther, parseUnits, type Address } from 'viem';
import { createLogger } from '../../src/logger.js';
import { parseIndexerConfig } from '../../src/indexer/evm/config.js';
import { startIndexer, type IndexerHandle } from '../../src/indexer/evm/run.js';
import { indexerMetrics } from '../../src/indexer/evm/prom.js';
import { addV2Liquidity, approveRouters, erc20Abi, swapV2, swapV2Request, swapV3 } from '../../src/devnet/dex.js';
import { deployToken } from '../../src/devnet/deploy.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';
import { Oracle, type Expected } from '../helpers/chain/oracle.js';
import { expectEveryRead } from '../helpers/chain/compare.js';

/** The property's reorgDepth: deep enough for a token, its pool and a swap in orphaned blocks. */
const DEPTH = 8;

let s: Scenario;

beforeAll(async () => {
  s = await buildScenario({ chain: 'devnet' });
}, 120_000);

afterAll(async () => {
  await s?.stop();
});

async function waitFor(what: string, ok: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  for (let waited = 0; waited < ms; waited += 25) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

type Lines = { lines: Record<string, unknown>[] };
function follow(t: TestApp, reorgDepth: number, sink?: Lines): IndexerHandle {
  const config = parseIndexerConfig({ chains: [{ ...s.config, reorgDepth, pollMs: 50 }] }, ['devnet']);
  const log = createLogger('info', { write: (line: string) => void sink?.lines.push(JSON.parse(line) as Record<string, unknown>) });
  const handle = startIndexer({ config, services: t.services, log, metrics: indexerMetrics(t.services.metrics.registry) });
  t.services.indexers.configure(['devnet']);
  t.services.indexers.attach(() => handle.status());
  return handle;
}

/** Waits until the indexer stands at the node's head (a reorg at the same height: mine a block first). */
async function caughtUp(handle: IndexerHandle): Promise<number> {
  const head = await s.chain.blockNumber();
  await waitFor(`the indexer at block ${head}`, () => {
    const st = handle.status()[0]!;
    if (st.state === 'stopped') throw new Error('the indexer stopped');
    return st.indexed === head;
  });
  return head;
}

/** Every read against the oracle of the canonical chain up to `head`, the clock at its newest block. */
async function expectCanonical(t: TestApp, head: number): Promise<Expected> {
  await t.settled();
  const newest = await s.chain.client.getBlock({ blockNumber: BigInt(head) });
  t.clock.set(Number(newest.timestamp) * 1000);
  const e = await new Oracle(s.anvil.rpcUrl).expect(s.config, head);
  await expectEveryRead(t, e);
  return e;
}

/** The swaps the steps draw from: kind, trader, size (1..5). V2 kinds have a request form for anvil_reorg. */
type SwapSpec = { kind: number; trader: number; size: number };
const swapArb = fc.record({ kind: fc.integer({ min: 0, max: 4 }), trader: fc.integer({ min: 0, max: 3 }), size: fc.integer({ min: 1, max: 5 }) });

function swapArgs(sw: SwapSpec): { path: Address[]; amount: bigint } {
  const t = s.world.tokens;
  const n = BigInt(sw.size);
  switch (sw.kind) {
    case 0:
      return { path: [t.weth, t.alpha], amount: parseEther('0.01') * n };
    case 1:
      return { path: [t.alpha, t.weth], amount: parseUnits('300', 18) * n };
    case 2:
      return { path: [t.usdc, t.weth], amount: parseUnits('200', 6) * n };
    case 3:
      return { path: [t.beta, t.usdc], amount: parseUnits('700', 9) * n };
    default:
      return { path: [t.usdc, t.beta], amount: parseUnits('90', 6) * n };
  }
}

const traderOf = (sw: SwapSpec) => s.world.traders[sw.trader % s.world.traders.length] as Address;

/** One swap, its own block; every fifth size-5 one goes through the V3 pool instead. */
async function play(sw: SwapSpec): Promise<void> {
  if (sw.kind === 4 && sw.size === 5) {
    await swapV3(s.chain, s.world.dex, traderOf(sw), [s.world.tokens.usdc, s.world.tokens.gamma], [3000], parseUnits('150', 6));
    return;
  }
  const { path, amount } = swapArgs(sw);
  await swapV2(s.chain, s.world.dex, traderOf(sw), path, amount);
}

type Step = { kind: 'swaps'; swaps: SwapSpec[] } | { kind: 'reorg'; how: 'anvil_reorg' | 'revert'; depth: number; replacements: SwapSpec[] };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('swaps' as const), swaps: fc.array(swapArb, { minLength: 1, maxLength: 3 }) }),
  fc.record({
    kind: fc.constant('reorg' as const),
    how: fc.constantFrom('anvil_reorg' as const, 'revert' as const),
    depth: fc.integer({ min: 1, max: DEPTH }),
    replacements: fc.array(swapArb, { minLength: 0, maxLength: 3 }),
  }),
);

/**
 * A reorg of `depth` blocks the indexer has indexed, each with a swap: anvil_reorg puts the
 * replacement swaps in as many new blocks (the height stays; one more block is mined so the
 * indexer sees a child of the new branch); evm_revert goes back to before them and mines the
 * replacements one a block, and one more block when there are none or the height came back to
 * the same.
 */
async function reorg(handle: IndexerHandle, step: Extract<Step, { kind: 'reorg' }>, orphaned: SwapSpec[]): Promise<void> {
  const snapshot = step.how === 'revert' ? await s.chain.snapshot() : null;
  const before = await s.chain.blockNumber();
  for (let i = 0; i < step.depth; i++) await play(orphaned[i % orphaned.length]!);
  const top = await caughtUp(handle);
  if (snapshot === null) {
    const txs = step.replacements.map((sw, i) => {
      const { path, amount } = swapArgs(sw);
      return { tx: swapV2Request(s.chain, s.world.dex, traderOf(sw), path, amount), block: i % step.depth };
    });
    await s.chain.reorg(step.depth, txs);
    await s.chain.mine(1);
  } else {
    await s.chain.revert(snapshot);
    expect(await s.chain.blockNumber()).toBe(before);
    for (const sw of step.replacements) await play(sw);
    // A branch is new blocks: a chain only cut short is a node that lags, as far as anyone can tell.
    if (step.replacements.length === 0) await s.chain.mine(1);
    // A branch exactly as high as the old one is seen at its next block (docs/indexer.md, Reorgs):
    // a polled head at the indexed number, another hash, tells nothing new until then.
    if ((await s.chain.blockNumber()) === top) await s.chain.mine(1);
  }
}

describe('the indexer following reorgs', () => {
  it('after random swaps and reorgs of depth 1 to reorgDepth, every read equals the oracle of the canonical chain', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 2, maxLength: 5 }), fc.array(swapArb, { minLength: 1, maxLength: 3 }), async (steps, orphaned) => {
        const t = makeTestApp({ env: { CHAIN: 'devnet' } });
        const sink: Lines = { lines: [] };
        const handle = follow(t, DEPTH, sink);
        try {
          await caughtUp(handle);
          let reorgs = 0;
          for (const step of steps) {
            if (step.kind === 'swaps') for (const sw of step.swaps) await play(sw);
            else {
              await reorg(handle, step, orphaned);
              reorgs += 1;
            }
            await expectCanonical(t, await caughtUp(handle));
          }
          const lines = sink.lines.filter((l) => String(l.msg).startsWith('reorg on devnet'));
          expect([handle.status()[0]!.state, lines.length]).toEqual(['following', reorgs]);
          const removed = lines.reduce((n, l) => n + (l.trades as number), 0);
          const metric = async (name: string) =>
            new RegExp(`^${name}\\{chain="devnet"[^}]*\\} (\\d+)$`, 'm').exec(await t.services.metrics.registry.getSingleMetricAsString(name))?.[1];
          expect([await metric('indexer_reorgs_total'), await metric('indexer_removed_trades_total')]).toEqual([String(reorgs), String(removed)]);
          await handle.stop();
          // The cli index --json summary's figure.
          expect((await handle.done).chains.map((c) => c.reorgs)).toEqual([reorgs]);
        } finally {
          await handle.stop();
          await t.close();
        }
      }),
      { numRuns: 5, endOnFailure: true },
    );
  }, 600_000);

  it('removes a token and its market first seen in orphaned blocks, with their trades and holders', async () => {
    const t = makeTestApp({ env: { CHAIN: 'devnet' } });
    const sink: Lines = { lines: [] };
    const handle = follow(t, DEPTH, sink);
    try {
      await caughtUp(handle);
      const snapshot = await s.chain.snapshot();
      const { deployer, dex, tokens } = s.world;
      // Token, mint, approvals, pool and a swap: 7 blocks, within reorgDepth.
      const token = await deployToken(s.chain, deployer, { kind: 'string', name: 'Orphan Token', symbol: 'ORPH', decimals: 18 });
      await s.chain.send(deployer, token, erc20Abi, 'mint', [deployer, parseUnits('1000000', 18)]);
      await approveRouters(s.chain, dex, deployer, [token]);
      await addV2Liquidity(s.chain, dex, deployer, token, tokens.usdc, parseUnits('100000', 18), parseUnits('5000', 6));
      await swapV2(s.chain, dex, deployer, [tokens.usdc, token], parseUnits('100', 6));
      const top = await caughtUp(handle);
      const address = token.toLowerCase();
      const seen = await t.http.get(`/v1/token/${address}/overview`);
      expect([seen.status, seen.body.markets, seen.body.holders > 0]).toEqual([200, 1, true]);

      await s.chain.revert(snapshot);
      await play({ kind: 0, trader: 1, size: 2 });
      await play({ kind: 2, trader: 2, size: 1 });
      expect(await s.chain.blockNumber()).toBeLessThan(top);
      const head = await caughtUp(handle);
      const gone = await t.http.get(`/v1/token/${address}/overview`);
      expect([gone.status, gone.body.error?.code]).toEqual([404, 'token_not_found']);
      const e = await expectCanonical(t, head);
      expect(e.tokens.map((x) => x.address)).not.toContain(address);
      const line = sink.lines.find((l) => String(l.msg).startsWith('reorg on devnet'));
      expect(line).toMatchObject({ chain: 'devnet', markets: 1, tokens: 1 });
    } finally {
      await handle.stop();
      await t.close();
    }
  }, 240_000);

  it('stops at a reorg deeper than reorgDepth: one error line, /healthz degraded, state stopped, nothing removed', async () => {
    const t = makeTestApp({ env: { CHAIN: 'devnet' } });
    const sink: Lines = { lines: [] };
    const handle = follow(t, 2, sink);
    try {
      await caughtUp(handle);
      for (const kind of [0, 1, 2]) await play({ kind, trader: kind, size: 3 });
      const top = await caughtUp(handle);
      const before = await expectCanonical(t, top);
      const { path, amount } = swapArgs({ kind: 3, trader: 0, size: 1 });
      await s.chain.reorg(3, [{ tx: swapV2Request(s.chain, s.world.dex, s.world.traders[0] as Address, path, amount), block: 0 }]);
      await s.chain.mine(1);
      await expect(handle.done).rejects.toThrow(/deeper than reorgDepth \(2\)/);
      expect(handle.status()[0]).toMatchObject({ state: 'stopped', indexed: top });
      const errors = sink.lines.filter((l) => (l.level as number) >= 50);
      expect(errors.map((l) => l.msg)).toEqual([expect.stringMatching(/^indexer of devnet stopped: reorg deeper than reorgDepth \(2\) on devnet/)]);
      const health = await t.http.get('/healthz');
      expect([health.body.status, health.body.indexers?.[0]?.state]).toEqual(['degraded', 'stopped']);
      // Nothing removed: the store still answers the chain as it was before the reorg.
      await expectEveryRead(t, before);
      expect(await t.services.repos.indexer.position('devnet')).toMatchObject({ number: top });
    } finally {
      await handle.stop();
      await t.close();
    }
  }, 240_000);
});
