/**
 * The indexer against a real node (issue 29): the scenario of test/helpers/chain/scenario.ts on
 * anvil, indexed by startIndexer on makeTestApp()'s services up to the scenario's last block;
 * every stored trade, bar, overview figure, market and holder, read through the HTTP API, equals
 * the naive oracle's recomputation from the node's own logs and eth_calls. Runs on SQLite and,
 * with the postgres config, on PostgreSQL. One anvil and one scenario for the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { parseIndexerConfig } from '../../src/indexer/evm/config.js';
import { startIndexer, type IndexSummary } from '../../src/indexer/evm/run.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';
import { Oracle, type Expected } from '../helpers/chain/oracle.js';
import { expectBars, expectHolders, expectMarkets, expectOverviews, expectTrades } from '../helpers/chain/compare.js';

let s: Scenario;
let e: Expected;
let t: TestApp;
let summary: IndexSummary;

beforeAll(async () => {
  s = await buildScenario({ chain: 'devnet' });
  e = await new Oracle(s.anvil.rpcUrl).expect(s.config, s.endBlock);
  t = makeTestApp({ env: { CHAIN: 'devnet' } });
  const config = parseIndexerConfig({ chains: [s.config] }, ['devnet']);
  const handle = startIndexer({ config, services: t.services, log: createLogger('silent'), until: s.endBlock });
  summary = await handle.done;
  await t.settled();
  // Windows are read on the app's clock: the newest block's time, as if now.
  const newest = await s.chain.client.getBlock({ blockNumber: BigInt(s.endBlock) });
  t.clock.set(Number(newest.timestamp) * 1000);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await s?.stop();
});

describe('the indexer against the naive oracle', () => {
  it("sums up what it read, from the factories' first block to --until", () => {
    const fromBlock = s.world.dex.firstBlock;
    expect(summary).toEqual({
      chains: [{ chain: 'devnet', fromBlock, toBlock: s.endBlock, blocks: s.endBlock - fromBlock + 1, trades: 25, markets: 7, tokens: 6, reorgs: 0 }],
    });
    expect([e.trades.length, e.markets.length, e.tokens.length]).toEqual([25, 7, 6]);
  });

  it('stores every trade of every token as the oracle computes it, record numbers in chain order', async () => {
    await expectTrades(t, e);
  });

  it('serves one-minute bars equal to aggregating the oracle trades', async () => {
    await expectBars(t, e);
  });

  it('answers overviews (metadata, supplies, price, caps, liquidity, holders, 24h window) as the oracle', async () => {
    await expectOverviews(t, e);
  });

  it('stores every market with its quote, dex, creation time and liquidity, and no pool without a quote or decimals', async () => {
    await expectMarkets(t, e);
    for (const pool of [...e.skipped.noQuotePools, ...e.skipped.noDecimalsPools]) {
      const res = await t.http.get(`/v1/token/${pool}/overview`);
      expect(res.status).toBe(404);
    }
    const nodec = await t.http.get(`/v1/token/${s.world.tokens.nodec.toLowerCase()}/overview`);
    expect(nodec.status).toBe(404);
    // A quote that is the base of no market (USDC) has no chart.
    expect((await t.http.get(`/v1/token/${s.world.tokens.usdc.toLowerCase()}/overview`)).status).toBe(404);
  });

  it("folds holders from Transfer (and WETH's Deposit/Withdrawal) logs to each owner's balanceOf", async () => {
    await expectHolders(t, e);
  });
});
