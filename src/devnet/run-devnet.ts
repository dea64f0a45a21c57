/**
 * `npm run devnet` (scripts/devnet.ts): a local anvil with the real Uniswap V2 and V3 contracts,
 * USDC, WETH and a few tokens with pools (src/devnet/world.ts), a day of history (a block every
 * 5 minutes with a few swaps each), then simulated traders swapping about every second on a
 * 1 s block interval; the indexer file written to .tmp/devnet/indexer.json and the server started
 * on a fresh SQLite store with INDEXER_CONFIG, so the charts show this chain indexed by the real
 * code path. No network: the node, the contracts and the compiler come from npm.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startAnvil, type Anvil } from './anvil.js';
import { connectDevChain } from './chain.js';
import { randomSwap, seededRandom } from './traders.js';
import { buildWorld, worldIndexerConfig, type World } from './world.js';

export type DevnetOptions = {
  /** Folder of the indexer file and the store (default .tmp/devnet). */
  dir?: string;
  /** Hours of history before the live traders start (default 24). */
  historyHours?: number;
  port?: number;
  seed?: number;
  log?: (line: string) => void;
  /** Extra server environment (LOG_LEVEL, ...), over the process's own. */
  env?: Record<string, string>;
};

export type Devnet = {
  anvil: Anvil;
  world: World;
  /** The blocks of history, 5 minutes apart, ending 5 minutes before the devnet started. */
  history: { fromBlock: number; toBlock: number };
  configPath: string;
  serverUrl: string;
  stop(): Promise<void>;
};

const HISTORY_STEP_S = 300;

export async function runDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dir = opts.dir ?? join('.tmp', 'devnet');
  const historyHours = opts.historyHours ?? 24;
  const random = seededRandom(opts.seed ?? 29);
  const now = Math.floor(Date.now() / 1000);
  const anvil = await startAnvil({ accounts: 10, timestamp: now - historyHours * 3600 - 600 });
  let traders: NodeJS.Timeout | null = null;
  let server: { stop(): Promise<void> } | null = null;
  const stop = async (): Promise<void> => {
    if (traders !== null) clearInterval(traders);
    await server?.stop();
    await anvil.stop();
  };
  try {
    log(`devnet: anvil listening on ${anvil.rpcUrl}; deploying Uniswap V2/V3, tokens and pools`);
    const chain = await connectDevChain(anvil.rpcUrl);
    const world = await buildWorld(chain);

    // History: a block every 5 minutes up to now, each with a few swaps.
    await chain.automine(false);
    const setTime = (t: number): Promise<unknown> => chain.client.request({ method: 'anvil_setNextBlockTimestamp' as 'eth_chainId', params: [t] as never });
    const blocks = Math.floor((historyHours * 3600) / HISTORY_STEP_S);
    const history = { fromBlock: (await chain.blockNumber()) + 1, toBlock: (await chain.blockNumber()) + blocks };
    for (let i = 0; i < blocks; i += 1) {
      const swaps = 1 + Math.floor(random() * 4);
      for (let k = 0; k < swaps; k += 1) await randomSwap(world, random, { wait: false });
      await setTime(now - (blocks - i) * HISTORY_STEP_S);
      await chain.mine(1);
    }
    await setTime(Math.floor(Date.now() / 1000));
    await chain.mine(1);
    log(`devnet: ${blocks} blocks of history mined; traders start, a block every second`);

    // Live: a block a second, one to three swaps between blocks.
    await chain.intervalMining(1);
    traders = setInterval(() => {
      const swaps = 1 + Math.floor(random() * 3);
      for (let k = 0; k < swaps; k += 1) randomSwap(world, random, { wait: false }).catch(() => undefined);
    }, 1000);

    mkdirSync(dir, { recursive: true });
    const configPath = join(dir, 'indexer.json');
    const config = { chains: [worldIndexerConfig(world, { chain: 'devnet', rpcUrl: anvil.rpcUrl, wsUrl: anvil.wsUrl, startBlock: 0 })] };
    writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
    const databasePath = join(dir, 'tokens.db');
    for (const f of [databasePath, `${databasePath}-wal`, `${databasePath}-shm`]) rmSync(f, { force: true });
    log(`devnet: indexer file ${configPath}; store ${databasePath} (fresh)`);

    const { start } = await import('../server.js');
    const { startBanner } = await import('../start-banner.js');
    const running = await start({
      ...process.env,
      INDEXER_CONFIG: configPath,
      DATABASE_PATH: databasePath,
      DEMO_DATA: 'off',
      DEMO_FEED: 'off',
      // A one-chain deployment of its own fresh store: a CHAINS left in the shell would disagree with CHAIN (docs/chains.md).
      CHAIN: 'devnet',
      CHAINS: 'devnet',
      PORT: String(opts.port ?? process.env.PORT ?? 8080),
      ...opts.env,
    });
    server = running;
    const address = running.server.address() as AddressInfo;
    const serverUrl = `http://127.0.0.1:${address.port}`;
    process.stderr.write(await startBanner(running.services.repos, address).catch(() => `listening on ${serverUrl}\n`));
    const t = world.tokens;
    log(
      [
        'devnet tokens (chart: /embed/chart?symbol=ADDRESS&resolution=1):',
        `  WETH  ${t.weth.toLowerCase()}`,
        `  ALPHA ${t.alpha.toLowerCase()} (18 decimals, priced in WETH)`,
        `  BETA  ${t.beta.toLowerCase()} (9 decimals)`,
        `  GAMMA ${t.gamma.toLowerCase()} (6 decimals, Uniswap V3)`,
        `  BYTES ${t.bytes.toLowerCase()} (bytes32 symbol)`,
        `  indexer status: ${serverUrl}/healthz`,
      ].join('\n'),
    );
    return { anvil, world, history, configPath, serverUrl, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
