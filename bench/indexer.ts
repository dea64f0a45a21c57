/**
 * The benchmark's indexer pass (docs/indexer.md): a local anvil holding tens of thousands of swaps
 * over thousands of blocks on the devnet's pools (many swaps per block, mined by hand so the chain
 * builds fast), then
 * - backfill: startIndexer to the head on a fresh SQLite store, swaps per second;
 * - the ceiling: the very RPC requests the indexer made (recorded by a pass-through proxy),
 *   replayed through the same proxy with no processing, 8 in flight;
 * - NDJSON: the same tokens, markets and trades ingested through the ingest service into a fresh
 *   store, in transactions of 2000 records as `cli ingest` writes them;
 * - following: the node mines a block a second with a few swaps each; the delay from the node
 *   announcing a block (newHeads) to its first trade reaching a /v1/stream subscriber, p50/p99;
 * - a reorg (bench/reorg.ts), when the benchmark's store is handed in: the retraction of a 3-block
 *   reorg on its hot token, and the reads answered during it.
 * Run alone: `npx tsx bench/indexer.ts [--blocks N] [--swaps-per-block N] [--follow-seconds N]`.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { parseEther, parseUnits, type Address, type Hex } from 'viem';
import { WebSocket } from 'ws';
import { startAnvil } from '../src/devnet/anvil.js';
import { connectDevChain } from '../src/devnet/chain.js';
import { erc20Abi, wethAbi } from '../src/devnet/dex.js';
import { randomSwap, seededRandom } from '../src/devnet/traders.js';
import { buildWorld, DECIMALS, worldIndexerConfig, type World, type WorldTokens } from '../src/devnet/world.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { systemClock } from '../src/domain/clock.js';
import { attachStream } from '../src/http/stream.js';
import { parseIndexerConfig } from '../src/indexer/evm/config.js';
import { startIndexer } from '../src/indexer/evm/run.js';
import { createLogger } from '../src/logger.js';
import { createServices } from '../src/services/index.js';
import { openStore } from '../src/store/sqlite/db.js';
import { formatReorg, measureReorg, reorgMisses, type ReorgFigure } from './reorg.js';

export type IndexerFigure = {
  blocks: number;
  swaps: number;
  buildSeconds: number;
  backfillSeconds: number;
  backfillSwapsPerSecond: number;
  rpcRequests: number;
  readsOnlySeconds: number;
  readsOnlySwapsPerSecond: number;
  /** backfill swaps/s over the reads-only ceiling (target: at least 0.5) */
  ratioToReads: number;
  ndjsonSeconds: number;
  ndjsonTradesPerSecond: number;
  ratioToNdjson: number;
  follow: { blocks: number; p50Ms: number; p99Ms: number; maxMs: number } | null;
  /** A 3-block reorg on the benchmark store's hot token (null when no store was handed in). */
  reorg: ReorgFigure | null;
};

export type IndexerPassOptions = {
  blocks: number;
  swapsPerBlock: number;
  followSeconds: number;
  /** The benchmark's store for the reorg measurement: its file, a working copy's path, its hot token and anchor. */
  reorgStore?: { path: string; workPath: string; hot: string; anchor: number };
  say(line: string): void;
};

const seconds = (fromMs: number): number => (Date.now() - fromMs) / 1000;

/** The pass's targets: backfill at least half the reads-only ceiling, head-to-stream p99 under 1.5 s. */
export function indexerMisses(f: IndexerFigure | null): string[] {
  if (f === null) return [];
  const misses: string[] = [];
  if (!(f.ratioToReads >= 0.5)) misses.push(`indexer backfill ${f.ratioToReads.toFixed(2)} of the reads-only ceiling (target >= 0.5)`);
  if (f.follow !== null && !(f.follow.p99Ms < 1500)) misses.push(`indexer head-to-stream p99 ${f.follow.p99Ms} ms (target < 1500 ms)`);
  misses.push(...reorgMisses(f.reorg));
  return misses;
}

/** One paragraph for the benchmark's output. */
export function formatIndexer(f: IndexerFigure): string {
  const follow =
    f.follow === null ? 'not measured' : `p50 ${f.follow.p50Ms} ms, p99 ${f.follow.p99Ms} ms over ${f.follow.blocks} blocks (target p99 < 1500 ms)`;
  return [
    `indexer: ${f.swaps.toLocaleString('en')} swaps over ${f.blocks.toLocaleString('en')} blocks (built in ${f.buildSeconds.toFixed(0)} s)`,
    `  backfill ${f.backfillSwapsPerSecond.toFixed(0)} swaps/s (${f.backfillSeconds.toFixed(1)} s, ${f.rpcRequests} RPC requests)`,
    `  the same RPC reads with no processing ${f.readsOnlySwapsPerSecond.toFixed(0)} swaps/s: ratio ${f.ratioToReads.toFixed(2)} (target >= 0.5)`,
    `  the same records as NDJSON ${f.ndjsonTradesPerSecond.toFixed(0)} trades/s: ratio ${f.ratioToNdjson.toFixed(3)}`,
    `  head-to-stream with wsUrl on 1 s blocks: ${follow}`,
    ...(f.reorg === null ? [] : [formatReorg(f.reorg)]),
  ].join('\n');
}

/** A pass-through JSON-RPC proxy that keeps every request body it forwards while `recording`. */
async function recordingProxy(upstream: string): Promise<{ url: string; bodies: string[]; recording: boolean; close(): Promise<void> }> {
  const state = { bodies: [] as string[], recording: true };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      if (state.recording) state.bodies.push(body);
      fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()))
        .catch(() => req.socket.destroy());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  });
}

async function fundTraders(world: World): Promise<void> {
  const { chain, deployer, tokens } = world;
  const minted: (keyof WorldTokens)[] = ['usdc', 'alpha', 'beta', 'gamma', 'bytes', 'anon'];
  for (const trader of world.traders) {
    for (const k of minted) await chain.send(deployer, tokens[k], erc20Abi, 'mint', [trader, parseUnits('1000000000', DECIMALS[k])]);
    await chain.send(trader, tokens.weth, wethAbi, 'deposit', [], { value: parseEther('5000') });
  }
}

/** Mines `blocks` blocks of `perBlock` swaps, one trader per concurrent send (the node orders each account's nonces). */
async function buildChain(world: World, blocks: number, perBlock: number, say: (l: string) => void): Promise<void> {
  const random = seededRandom(7);
  await world.chain.automine(false);
  const t0 = Date.now();
  for (let b = 0; b < blocks; b += 1) {
    for (let sent = 0; sent < perBlock; sent += world.traders.length) {
      const round = world.traders.slice(0, Math.min(world.traders.length, perBlock - sent));
      await Promise.all(round.map((tr) => randomSwap(world, random, { wait: false }, tr)));
    }
    await world.chain.mine(1);
    if ((b + 1) % 250 === 0) say(`indexer: ${b + 1} of ${blocks} blocks mined (${seconds(t0).toFixed(0)} s)`);
  }
  await world.chain.automine(true);
}

/** Replays recorded request bodies through the proxy, `inFlight` at a time; answers the seconds taken. */
async function replay(url: string, bodies: string[], inFlight: number): Promise<number> {
  const t0 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++] as string;
        await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
      }
    }),
  );
  return seconds(t0);
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

export async function runIndexerPass(opts: IndexerPassOptions): Promise<IndexerFigure> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-indexer-'));
  const anvil = await startAnvil({ accounts: 10, gasLimit: 1_000_000_000 });
  const env = { CHAIN: 'devnet', DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'silent' };
  try {
    const chain = await connectDevChain(anvil.rpcUrl);
    const tBuild = Date.now();
    const world = await buildWorld(chain);
    await fundTraders(world);
    await buildChain(world, opts.blocks, opts.swapsPerBlock, opts.say);
    const buildSeconds = seconds(tBuild);
    const head = await chain.blockNumber();
    opts.say(`indexer: chain built in ${buildSeconds.toFixed(0)} s (${head} blocks); backfilling`);

    // Backfill through the recording proxy.
    const proxy = await recordingProxy(anvil.rpcUrl);
    const file = join(dir, 'indexed.db');
    const store = openStore(file);
    const services = createServices({ store, clock: systemClock, config: loadConfig({ ...env, DATABASE_PATH: file }) });
    // Ranges of 200 blocks: one eth_getLogs over thousands of busy blocks can take past the 10 s timeout.
    const chainConfig = worldIndexerConfig(world, { chain: 'devnet', rpcUrl: proxy.url, requestsPerSecond: 100_000, maxBlockRange: 200 });
    const tIndex = Date.now();
    const summary = await startIndexer({
      config: parseIndexerConfig({ chains: [chainConfig] }, ['devnet']),
      services,
      log: createLogger('silent'),
      until: head,
    }).done;
    const backfillSeconds = seconds(tIndex);
    const swaps = summary.chains[0]?.trades ?? 0;
    proxy.recording = false;
    opts.say(
      `indexer: backfilled ${swaps} swaps in ${backfillSeconds.toFixed(1)} s with ${proxy.bodies.length} RPC requests; replaying them with no processing`,
    );
    const readsOnlySeconds = await replay(proxy.url, proxy.bodies, 8);
    await proxy.close();

    // NDJSON: the same records into a fresh store through the ingest service.
    const records = readRecords(file);
    const ndjsonStore = openStore(join(dir, 'ndjson.db'));
    const ndjsonServices = createServices({ store: ndjsonStore, clock: systemClock, config: loadConfig({ ...env, DATABASE_PATH: join(dir, 'ndjson.db') }) });
    const tNd = Date.now();
    for (let i = 0; i < records.length; i += 2000) ndjsonServices.ingest.ingest(records.slice(i, i + 2000).map((value, k) => ({ line: i + k + 1, value })));
    const ndjsonSeconds = seconds(tNd);
    ndjsonStore.close();

    const follow = opts.followSeconds > 0 ? await measureFollow(world, store, env, file, opts) : null;
    store.close();
    let reorg: ReorgFigure | null = null;
    if (opts.reorgStore !== undefined) {
      opts.say('indexer: a 3-block reorg on the hot token of the benchmark store');
      reorg = await measureReorg({ storePath: opts.reorgStore.path, ...opts.reorgStore, blocks: 3, perBlock: 10, say: opts.say });
    }
    const backfillSwapsPerSecond = swaps / backfillSeconds;
    const readsOnlySwapsPerSecond = swaps / readsOnlySeconds;
    return {
      blocks: head,
      swaps,
      buildSeconds,
      backfillSeconds,
      backfillSwapsPerSecond,
      rpcRequests: proxy.bodies.length,
      readsOnlySeconds,
      readsOnlySwapsPerSecond,
      ratioToReads: backfillSwapsPerSecond / readsOnlySwapsPerSecond,
      ndjsonSeconds,
      ndjsonTradesPerSecond: swaps / ndjsonSeconds,
      ratioToNdjson: backfillSwapsPerSecond / (swaps / ndjsonSeconds),
      follow,
      reorg,
    };
  } finally {
    await anvil.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The indexed store's tokens, markets and trades as NDJSON records (trades in id order). */
function readRecords(file: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    const tokens = db.prepare('SELECT id, address, symbol, name, decimals, total_supply, circulating_supply, created_at FROM tokens').all() as Record<
      string,
      unknown
    >[];
    const addressOf = new Map(tokens.map((t) => [t.id, t.address]));
    const out: unknown[] = tokens.map((t) => ({
      type: 'token',
      address: t.address,
      symbol: t.symbol,
      name: t.name,
      decimals: t.decimals,
      totalSupply: t.total_supply,
      circulatingSupply: t.circulating_supply,
      createdAt: t.created_at,
      logoUri: null,
    }));
    for (const m of db.prepare('SELECT address, token_id, quote_address, quote_symbol, dex, liquidity_usd, created_at FROM markets').all() as Record<
      string,
      unknown
    >[]) {
      out.push({
        type: 'market',
        address: m.address,
        token: addressOf.get(m.token_id),
        quoteAddress: m.quote_address,
        quoteSymbol: m.quote_symbol,
        dex: m.dex,
        liquidityUsd: m.liquidity_usd,
        createdAt: m.created_at,
      });
    }
    for (const t of db
      .prepare('SELECT token_id, market, signature, idx, block_time, is_buy, price_usd, amount, quote_amount, volume_usd, wallet FROM trades ORDER BY id')
      .iterate() as Iterable<Record<string, unknown>>) {
      out.push({
        type: 'trade',
        token: addressOf.get(t.token_id),
        market: t.market,
        signature: t.signature,
        index: t.idx,
        blockTime: t.block_time,
        side: t.is_buy === 1 ? 'buy' : 'sell',
        priceUsd: t.price_usd,
        amount: t.amount,
        quoteAmount: t.quote_amount,
        volumeUsd: t.volume_usd,
        wallet: t.wallet,
      });
    }
    return out;
  } finally {
    db.close();
  }
}

/** Follows the chain on 1 s blocks for `followSeconds`; newHeads arrival to the first streamed trade of each block. */
async function measureFollow(
  world: World,
  store: ReturnType<typeof openStore>,
  env: Record<string, string>,
  file: string,
  opts: IndexerPassOptions,
): Promise<IndexerFigure['follow']> {
  const config = loadConfig({ ...env, DATABASE_PATH: file });
  const services = createServices({ store, clock: systemClock, config });
  const app = createApp({ config, store, clock: systemClock, services, logger: createLogger('silent') });
  const server = createServer(app.callback());
  const stream = attachStream(server, app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const chainConfig = worldIndexerConfig(world, {
    chain: 'devnet',
    rpcUrl: world.chain.rpcUrl,
    wsUrl: world.chain.rpcUrl.replace('http', 'ws'),
    requestsPerSecond: 100_000,
  });
  const handle = startIndexer({ config: parseIndexerConfig({ chains: [chainConfig] }, ['devnet']), services, log: createLogger('silent') });
  const heads = new Map<number, number>();
  const firstTrade = new Map<string, number>();
  const nodeWs = new WebSocket(world.chain.rpcUrl.replace('http', 'ws'));
  const client = new WebSocket(`ws://127.0.0.1:${port}/v1/stream`);
  let traders: NodeJS.Timeout | null = null;
  try {
    await Promise.all([once(nodeWs, 'open'), once(client, 'open')]);
    nodeWs.on('message', (m) => {
      const msg = JSON.parse(m.toString()) as { params?: { result?: { number?: string } } };
      const n = msg.params?.result?.number;
      if (n !== undefined) heads.set(Number(n), Date.now());
    });
    nodeWs.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    client.on('message', (m) => {
      const msg = JSON.parse(m.toString()) as { op: string; trades?: { signature: string }[] };
      if (msg.op !== 'trades') return;
      const now = Date.now();
      for (const t of msg.trades ?? []) if (!firstTrade.has(t.signature)) firstTrade.set(t.signature, now);
    });
    const t = world.tokens;
    for (const token of [t.weth, t.alpha, t.beta, t.gamma, t.bytes, t.anon])
      client.send(JSON.stringify({ op: 'subscribe', id: token, channel: 'trades', token: token.toLowerCase() }));
    const random = seededRandom(11);
    const sent: Hex[] = [];
    await world.chain.intervalMining(1);
    traders = setInterval(() => {
      for (const tr of world.traders.slice(0, 2 + Math.floor(random() * 3))) {
        randomSwap(world, random, { wait: false }, tr as Address).then(
          (h) => void sent.push(h),
          () => undefined,
        );
      }
    }, 1000);
    opts.say(`indexer: following for ${opts.followSeconds} s on 1 s blocks`);
    await new Promise((r) => setTimeout(r, opts.followSeconds * 1000));
    clearInterval(traders);
    traders = null;
    await new Promise((r) => setTimeout(r, 2000));
    // First streamed trade of each block, against that block's announcement.
    const firstOfBlock = new Map<number, number>();
    for (const hash of sent) {
      const at = firstTrade.get(hash.toLowerCase());
      if (at === undefined) continue;
      const receipt = await world.chain.client.getTransactionReceipt({ hash });
      const n = Number(receipt.blockNumber);
      firstOfBlock.set(n, Math.min(firstOfBlock.get(n) ?? Infinity, at));
    }
    const delays = [...firstOfBlock.entries()].filter(([n]) => heads.has(n)).map(([n, at]) => at - (heads.get(n) as number));
    delays.sort((a, b) => a - b);
    return { blocks: delays.length, p50Ms: quantile(delays, 0.5), p99Ms: quantile(delays, 0.99), maxMs: delays[delays.length - 1] ?? Number.NaN };
  } finally {
    if (traders !== null) clearInterval(traders);
    await world.chain.intervalMining(0);
    nodeWs.terminate();
    client.terminate();
    await handle.stop();
    await stream.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const { values } = parseArgs({ options: { blocks: { type: 'string' }, 'swaps-per-block': { type: 'string' }, 'follow-seconds': { type: 'string' } } });
  const figure = await runIndexerPass({
    blocks: Number(values.blocks ?? 2000),
    swapsPerBlock: Number(values['swaps-per-block'] ?? 18),
    followSeconds: Number(values['follow-seconds'] ?? 60),
    say: (l) => process.stderr.write(`${l}\n`),
  });
  process.stdout.write(`${JSON.stringify(figure, null, 2)}\n${formatIndexer(figure)}\n`);
}
