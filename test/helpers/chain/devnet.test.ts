/**
 * `npm run devnet`'s chain part (src/devnet/run-devnet.ts) with an hour of history: every history
 * block holds swaps that succeeded, its timestamps step 5 minutes up to now, the traders keep
 * swapping on 1 s blocks, the indexer file names the world's factories and quotes, and the server
 * started with INDEXER_CONFIG indexes the chain and follows it (/healthz, an overview, bars).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDevnet, type Devnet } from '../../../src/devnet/run-devnet.js';

let devnet: Devnet;
const dir = join(tmpdir(), `devnet-test-${process.pid}`);

beforeAll(async () => {
  devnet = await runDevnet({ dir, historyHours: 1, port: 0, log: () => undefined, env: { LOG_LEVEL: 'silent' } });
}, 120_000);

afterAll(async () => {
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the devnet', () => {
  it('mines an hour of history, a block every 5 minutes, each with successful swaps', async () => {
    const { client } = devnet.world.chain;
    const swapTopics = new Set([
      '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822',
      '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67',
    ]);
    const { fromBlock, toBlock } = devnet.history;
    expect(toBlock - fromBlock + 1).toBe(12);
    const times: number[] = [];
    for (let n = fromBlock; n <= toBlock; n += 1) {
      const block = await client.getBlock({ blockNumber: BigInt(n), includeTransactions: true });
      const receipts = await Promise.all(block.transactions.map((tx) => client.getTransactionReceipt({ hash: tx.hash })));
      const swaps = receipts.flatMap((r) => r.logs).filter((l) => swapTopics.has(l.topics[0] as string)).length;
      expect([n, swaps > 0, receipts.filter((r) => r.status !== 'success').length]).toEqual([n, true, 0]);
      times.push(Number(block.timestamp));
    }
    expect(new Set(times.slice(1).map((t, i) => t - (times[i] as number)))).toEqual(new Set([300]));
  });

  it('writes the indexer file for the world: factories, USDC at $1, WETH by the WETH/USDC pair', () => {
    const file = JSON.parse(readFileSync(devnet.configPath, 'utf8')) as { chains: Record<string, unknown>[] };
    const w = devnet.world;
    expect(file.chains).toEqual([
      {
        chain: 'devnet',
        rpcUrl: devnet.anvil.rpcUrl,
        wsUrl: devnet.anvil.wsUrl,
        pollMs: 1000,
        startBlock: 0,
        confirmations: 0,
        reorgDepth: 64,
        maxBlockRange: 2000,
        requestsPerSecond: 1000,
        dexes: [
          { name: 'uniswap-v2', protocol: 'uniswap-v2', factory: w.dex.v2Factory },
          { name: 'uniswap-v3', protocol: 'uniswap-v3', factory: w.dex.v3Factory },
        ],
        quotes: [
          { address: w.tokens.usdc, usd: 1 },
          { address: w.tokens.weth, usdPool: w.pools.wethUsdc },
        ],
        holders: true,
      },
    ]);
  });

  it('keeps the traders swapping on 1 s blocks, and the server indexes them: following, with charts', async () => {
    const before = await devnet.world.chain.blockNumber();
    let health: { indexers?: { chain: string; state: string; indexed: number }[] } = {};
    for (let i = 0; i < 600; i += 1) {
      health = (await (await fetch(`${devnet.serverUrl}/healthz`)).json()) as typeof health;
      const ix = health.indexers?.[0];
      if (ix !== undefined && ix.state === 'following' && ix.indexed > before) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(health.indexers?.map((x) => [x.chain, x.state, x.indexed > before])).toEqual([['devnet', 'following', true]]);
    const alpha = devnet.world.tokens.alpha.toLowerCase();
    const overview = (await (await fetch(`${devnet.serverUrl}/v1/token/${alpha}/overview`)).json()) as {
      symbol: string;
      windows: { '1h': { trades: number } };
    };
    expect(overview.symbol).toBe('ALPHA');
    const history = (await (
      await fetch(`${devnet.serverUrl}/udf/history?symbol=${alpha}&resolution=5&from=0&to=${Math.floor(Date.now() / 1000) + 60}`)
    ).json()) as { s: string; t: number[] };
    expect(history.s).toBe('ok');
    expect(history.t.length).toBeGreaterThan(1);
  });
});
