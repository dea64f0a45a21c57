/**
 * Node faults (issue 29): the indexer reads the scenario's node through the fault-injecting proxy
 * (test/helpers/chain/fault-proxy.ts) while a schedule answers 429 with Retry-After, 5xx, JSON-RPC
 * errors, a dropped connection, an answer held past the 10 s timeout, and refuses eth_getLogs
 * ranges wider than 25 blocks; afterwards the store equals the naive oracle's computation from
 * the node itself: nothing lost, doubled or altered. Then, following over the proxy's WebSocket,
 * every socket is dropped and a block mined afterwards is still indexed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import { createLogger } from '../../src/logger.js';
import { parseIndexerConfig } from '../../src/indexer/evm/config.js';
import { startIndexer } from '../../src/indexer/evm/run.js';
import { swapV2 } from '../../src/devnet/dex.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';
import { startFaultProxy, type FaultProxy } from '../helpers/chain/fault-proxy.js';
import { Oracle } from '../helpers/chain/oracle.js';
import { expectStoreMatchesOracle, expectTrades } from '../helpers/chain/compare.js';

let s: Scenario;
let proxy: FaultProxy;
let t: TestApp;

beforeAll(async () => {
  s = await buildScenario({ chain: 'devnet' });
  proxy = await startFaultProxy(s.anvil.rpcUrl, s.anvil.wsUrl);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await s?.stop();
});

async function atNewestBlock(app: TestApp, block: number): Promise<void> {
  const b = await s.chain.client.getBlock({ blockNumber: BigInt(block) });
  app.clock.set(Number(b.timestamp) * 1000);
}

describe('the indexer through a faulty node', () => {
  it('loses, doubles and alters nothing through 429s, 5xx, JSON-RPC errors, drops, a timeout and refused ranges', async () => {
    proxy.maxLogRange(25);
    proxy.schedule(
      { method: 'eth_getLogs', skip: 1, fault: { kind: 'status', status: 429, retryAfter: 1 } },
      { method: 'eth_getLogs', skip: 1, fault: { kind: 'rpc-error', code: -32603, message: 'internal error' } },
      { method: 'eth_getLogs', skip: 2, fault: { kind: 'hold', ms: 11_000 } },
      { method: 'eth_getLogs', skip: 1, fault: { kind: 'drop' } },
      { method: 'eth_call', skip: 3, fault: { kind: 'status', status: 503 } },
      { method: 'eth_call', skip: 2, fault: { kind: 'rpc-error', code: -32000, message: 'header not found' } },
      { method: 'eth_blockNumber', fault: { kind: 'status', status: 502 } },
    );
    t = makeTestApp({ env: { CHAIN: 'devnet' } });
    const config = parseIndexerConfig({ chains: [{ ...s.config, rpcUrl: proxy.url }] }, ['devnet']);
    const summary = await startIndexer({ config, services: t.services, log: createLogger('silent'), until: s.endBlock }).done;
    await t.settled();
    expect(summary.chains[0]).toMatchObject({ toBlock: s.endBlock, trades: 25, markets: 7, tokens: 6 });
    const stats = proxy.stats();
    expect(stats.pendingRules).toBe(0);
    expect({ ...stats.faults, range: (stats.faults.range ?? 0) > 0 }).toEqual({ status: 3, 'rpc-error': 2, hold: 1, drop: 1, range: true });
    await atNewestBlock(t, s.endBlock);
    await expectStoreMatchesOracle(t, await new Oracle(s.anvil.rpcUrl).expect(s.config, s.endBlock));
  }, 180_000);

  it('follows on after every WebSocket to the node is dropped', async () => {
    const app = makeTestApp({ env: { CHAIN: 'devnet' } });
    const config = parseIndexerConfig({ chains: [{ ...s.config, rpcUrl: proxy.url, wsUrl: proxy.wsUrl }] }, ['devnet']);
    const handle = startIndexer({ config, services: app.services, log: createLogger('silent') });
    try {
      const waitIndexed = async (block: number): Promise<void> => {
        for (let i = 0; i < 1200; i += 1) {
          const st = handle.status()[0];
          if (st !== undefined && st.indexed >= block && st.state === 'following') return;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error(`block ${block} not indexed`);
      };
      await waitIndexed(await s.chain.blockNumber());
      // It follows over the proxy's WebSocket (a newHeads subscription), which is then cut.
      expect(proxy.stats().requests.eth_subscribe ?? 0).toBeGreaterThan(0);
      proxy.dropWebSockets();
      await swapV2(s.chain, s.world.dex, s.world.traders[0] as `0x${string}`, [s.world.tokens.weth, s.world.tokens.alpha], parseEther('0.01'));
      const newest = await s.chain.blockNumber();
      await waitIndexed(newest);
      await app.settled();
      await atNewestBlock(app, newest);
      await expectTrades(app, await new Oracle(s.anvil.rpcUrl).expect(s.config, newest));
    } finally {
      await handle.stop();
      await app.close();
    }
  }, 120_000);
});
