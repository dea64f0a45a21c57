/**
 * One chain's indexer loop (docs/indexer.md): from the stored position (a fresh store first finds
 * the pools its factories created before startBlock), batches of blocks over adaptive ranges
 * up to head - confirmations, each committed through the one ingest path with the position,
 * the last reorgDepth block hashes, the carried state and (near the head, one block a batch) its
 * undo journal in the same transaction; then waiting for new heads. A batch whose first block's
 * parent is not the stored position is a reorg (reorg.ts): the orphaned blocks are retracted, the
 * position rolled back to the common ancestor, and the new branch indexed from there; one deeper
 * than the kept blocks stops the chain. A failed batch (the store down, say) is dropped whole:
 * the state is read back from the store and the batch built again after a backoff.
 */
import type { Logger } from 'pino';
import type { Services } from '../../services/index.js';
import type { ChainIndexerConfig } from './config.js';
import type { IndexerMetrics } from './metrics.js';
import { parseRecord } from '../../domain/records.js';
import { backoffMs, initialRange, nextRange } from '../../domain/evm-ranges.js';
import type { NumberedRecord } from '../../services/ingest.js';
import type { IndexedBlock, IndexerCommit } from '../../store/port/repos.js';
import { createRpc, pause, Stopped } from './rpc.js';
import { createNode, type BlockHeader, type Node } from './node.js';
import { dirtyRows, loadRows, loadState, markPool, type ChainState } from './state.js';
import { BatchBuilder, mapLimit, type Batch } from './blocks.js';
import { createHeads } from './heads.js';
import { buildRetraction, DeepReorg, findAncestor, rollbackStart } from './reorg.js';
import { recordOn, retractionOn } from './on-chain.js';

/** What one chain's run indexed (the `cli index --json` summary's entry). */
export type ChainSummary = {
  chain: string;
  fromBlock: number;
  toBlock: number;
  blocks: number;
  trades: number;
  markets: number;
  tokens: number;
  reorgs: number;
};

export type ChainProgress = {
  chain: string;
  head: number;
  indexed: number;
  state: 'backfilling' | 'following' | 'stopped';
  summary: ChainSummary;
};

export type ChainRun = {
  config: ChainIndexerConfig;
  services: Services;
  log: Logger;
  until?: number;
  metrics?: IndexerMetrics;
  signal: AbortSignal;
  progress: ChainProgress;
  nowMs: () => number;
  progressEveryMs: number;
};

/** A batch that made more trades than this makes the next span smaller (smaller transactions). */
const TRADES_PER_BATCH = 5_000;

/** Runs one chain until stopped (or indexed to `until`). */
export async function runChain(o: ChainRun): Promise<void> {
  try {
    await run(o);
  } catch (err) {
    if (err instanceof Stopped || o.signal.aborted) return;
    o.log.error({ err }, `indexer of ${o.config.chain} stopped: ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
}

async function run(o: ChainRun): Promise<void> {
  const { config: c, services, log, signal, progress } = o;
  const repo = services.repos.indexer;
  const range = { state: initialRange(c.maxBlockRange) };
  let lastFaultLog = 0;
  const rpc = createRpc({
    url: c.rpcUrl,
    requestsPerSecond: c.requestsPerSecond,
    signal,
    onRequest: (method, outcome) => o.metrics?.rpc(c.chain, method, outcome),
    onRetry: (method, err, waitMs) => {
      // One line a minute at most: a node down for an hour must not flood the log.
      if (o.nowMs() - lastFaultLog < 60_000) return;
      lastFaultLog = o.nowMs();
      log.warn({ method, waitMs, err: err instanceof Error ? err.message.split('\n')[0] : String(err) }, `node fault on ${method}; retrying`);
    },
  });
  const node = createNode(rpc, range, signal);
  const supplyReadAt = new Map<string, number>();
  let state: ChainState = await loadState(repo, c.chain);
  let builder = new BatchBuilder({ config: c, node, state, supplyReadAt, nowMs: o.nowMs });
  const heads = createHeads({ wsUrl: c.wsUrl, pollMs: c.pollMs, signal });
  signal.addEventListener('abort', () => heads.close(), { once: true });
  /** The state as the store holds it, and a builder over it: memory may hold what a dropped batch changed. */
  const reloaded = async (): Promise<ChainState> => {
    state = await loadState(repo, c.chain);
    builder = new BatchBuilder({ config: c, node, state, supplyReadAt, nowMs: o.nowMs });
    supplyReadAt.clear();
    return state;
  };

  /** Rolls back to the common ancestor after a reorg; answers the new position, or null when the node agrees with the store. */
  const reorg = async (): Promise<IndexedBlock | null> => {
    let to: IndexedBlock | null;
    try {
      to = await followReorg(o, node);
    } catch (err) {
      if (err instanceof DeepReorg || err instanceof Stopped || signal.aborted) throw err;
      // The store or the node failed midway: the retraction rolled back whole; try again later.
      log.error({ err }, `following a reorg of ${c.chain} failed; trying again`);
      await pause(backoffMs(0) * 4, signal);
      return null;
    }
    if (to !== null) await reloaded();
    return to;
  };

  try {
    const position = await repo.position(c.chain);
    let indexed: number;
    /** The hash of the block at `indexed` (null before the first commit): a new batch's first block names it as its parent. */
    let indexedHash: string | null = null;
    if (position !== undefined) {
      indexed = position.number;
      indexedHash = position.hash;
      // After a restart: the node may have reorganised the blocks indexed before it.
      if (await diverged(o, node, indexed)) {
        const to = await reorg();
        if (to !== null) [indexed, indexedHash] = [to.number, to.hash];
      }
    } else {
      // A fresh store: pools are read from the factories' first block whatever startBlock is.
      const head = await node.head();
      let first = c.startBlock;
      for (const d of c.dexes) {
        const deployed = await node.deployBlock(d.factory, head);
        if (deployed === null) log.warn({ factory: d.factory }, `factory ${d.factory} of ${d.name} has no code at the head`);
        else first = Math.min(first, deployed);
      }
      indexed = first - 1;
    }
    progress.indexed = Math.max(indexed, 0);
    progress.summary.fromBlock = indexed + 1;
    progress.summary.toBlock = indexed;

    let caughtUp = false;
    /** Batches in a row dropped because the node's blocks changed while they were read. */
    let unsettled = 0;
    let lastLog = o.nowMs();
    let loggedAt = { indexed, trades: 0 };
    let head = await node.head();
    for (;;) {
      if (signal.aborted) throw new Stopped('stopped');
      progress.head = head;
      o.metrics?.head(c.chain, head);
      let target = head - c.confirmations;
      if (o.until !== undefined) target = Math.min(target, o.until);
      if (o.until !== undefined && indexed >= o.until) break;
      if (indexed >= target) {
        if (!caughtUp) {
          caughtUp = true;
          progress.state = 'following';
          log.info({ indexed, head }, `indexer of ${c.chain} caught up at block ${indexed}; following the head`);
        }
        // A head below the position: the node went back to a shorter branch (or lags behind).
        if (head < indexed && (await diverged(o, node, head))) {
          const to = await reorg();
          if (to !== null) {
            [indexed, indexedHash] = [to.number, to.hash];
            continue;
          }
        }
        head = await heads.next(head, () => node.head());
        continue;
      }
      const from = indexed + 1;
      let to = nextRange(range.state, from, target)!.to;
      const trades = from >= c.startBlock;
      // Discovery before startBlock stops at its edge, so every trade batch starts at or after it.
      if (!trades) to = Math.min(to, c.startBlock - 1);
      // Within reorgDepth of the head a batch is one block, journaled, so a reorg undoes exactly its orphaned blocks.
      const edge = head - c.reorgDepth;
      const journaled = from > edge;
      to = journaled ? from : Math.min(to, edge);
      const finalSupplies = o.until !== undefined && to >= o.until;
      try {
        if (trades && from === c.startBlock) await seedPools(builder, state, node, c.startBlock);
        const batch = await builder.build(from, to, { trades, holders: c.holders, finalSupplies });
        const kept = await keptBlocks(batch, node, from, to, head, c.reorgDepth);
        const check = await consistent(batch, kept, node, from, indexedHash);
        if (check !== 'ok') {
          // The batch read blocks of a branch other than the stored one, or of two branches: none of it is written.
          node.forget();
          const back = check === 'reorg' ? await reorg() : null;
          if (back !== null) {
            [indexed, indexedHash] = [back.number, back.hash];
            unsettled = 0;
          } else {
            // The node changed under the batch: read it again after a pause that grows, so a node
            // that keeps answering two branches cannot spin the indexer.
            if (++unsettled % 10 === 0)
              log.warn({ from, to, times: unsettled }, `the node's blocks ${from}-${to} of ${c.chain} keep changing while read; reading again`);
            await pause(backoffMs(unsettled - 1), signal);
            state = await reloaded();
          }
          continue;
        }
        unsettled = 0;
        await commit(o, batch, kept, state, to - c.reorgDepth + 1, journaled ? { first: from, last: to, added: batch.added } : undefined);
        indexed = to;
        indexedHash = kept.at(-1)!.hash;
        count(o, batch);
        if (batch.counts.trades > TRADES_PER_BATCH) range.state = { ...range.state, span: Math.max(1, Math.floor(range.state.span / 2)), successes: 0 };
      } catch (err) {
        if (err instanceof Stopped || err instanceof DeepReorg || signal.aborted) throw err;
        log.error({ err, from, to }, `indexing blocks ${from}-${to} of ${c.chain} failed; trying again`);
        await pause(backoffMs(0) * 4, signal);
        // Memory may hold what the failed batch changed: read the state back from the store.
        node.forget();
        state = await reloaded();
        continue;
      }
      progress.indexed = indexed;
      progress.summary.toBlock = indexed;
      progress.summary.blocks = indexed - progress.summary.fromBlock + 1;
      o.metrics?.indexed(c.chain, indexed);
      if (!caughtUp && o.nowMs() - lastLog >= o.progressEveryMs) {
        const seconds = Math.max(0.001, (o.nowMs() - lastLog) / 1000);
        const rate = (indexed - loggedAt.indexed) / seconds;
        const left = rate > 0 ? Math.round((target - indexed) / rate) : null;
        log.info(
          {
            indexed,
            head,
            blocks: indexed - loggedAt.indexed,
            trades: progress.summary.trades - loggedAt.trades,
            blocksPerSecond: Math.round(rate * 10) / 10,
            secondsLeft: left,
          },
          `backfilling ${c.chain}: block ${indexed} of ${target}, ${Math.round(rate)} blocks/s, ${left === null ? 'time left unknown' : `about ${left} s left`}`,
        );
        lastLog = o.nowMs();
        loggedAt = { indexed, trades: progress.summary.trades };
      }
      if (indexed >= target) head = await node.head();
    }
  } finally {
    heads.close();
  }
}

/**
 * Pools made before startBlock start from their state as block startBlock begins: reference pools
 * their price (getReserves() / slot0()), markets their reserves or balances (for liquidity), as
 * the events before startBlock, which are not read, left them.
 */
async function seedPools(builder: BatchBuilder, state: ChainState, node: ReturnType<typeof createNode>, startBlock: number): Promise<void> {
  const at = Math.max(0, startBlock - 1);
  const refs = builder.referencePools;
  for (const pool of state.pools.values()) {
    if (pool.createdBlock >= startBlock || (!pool.market && !refs.has(pool.address))) continue;
    if (pool.state === null && (refs.has(pool.address) || pool.protocol === 'uniswap-v2')) pool.state = await node.poolState(pool.address, pool.protocol, at);
    if (pool.market && pool.protocol === 'uniswap-v3' && pool.balances === null) {
      pool.balances = [await node.balanceOf(pool.token0, pool.address, at), await node.balanceOf(pool.token1, pool.address, at)];
    }
    markPool(state, pool.address);
  }
}

/** The blocks whose hashes are kept: the batch's own, and every block within reorgDepth of the head. */
async function keptBlocks(batch: Batch, node: ReturnType<typeof createNode>, from: number, to: number, head: number, depth: number): Promise<IndexedBlock[]> {
  const byNumber = new Map<number, BlockHeader>(batch.headers.map((h) => [h.number, h]));
  const missing: number[] = [];
  for (let n = Math.max(from, to - depth + 1, head - depth + 1); n <= to; n++) if (!byNumber.has(n)) missing.push(n);
  for (const h of await mapLimit(missing, 8, (n) => node.header(n))) byNumber.set(h.number, h);
  return [...byNumber.values()]
    .filter((h) => h.number > to - depth)
    .sort((a, b) => a.number - b.number)
    .map((h) => ({ number: h.number, hash: h.hash, parentHash: h.parentHash }));
}

/**
 * Whether a built batch is of the stored branch: its first block's parent is the stored position
 * ('reorg' otherwise), and its logs and headers are of one branch, each header its predecessor's
 * child ('torn' otherwise: the node reorganised while the batch was read).
 */
async function consistent(batch: Batch, kept: readonly IndexedBlock[], node: Node, from: number, parent: string | null): Promise<'ok' | 'reorg' | 'torn'> {
  const headers = new Map<number, { hash: string; parentHash: string }>(batch.headers.map((h) => [h.number, h]));
  for (const k of kept) headers.set(k.number, k);
  const first = headers.get(from) ?? (parent === null ? undefined : await node.header(from));
  if (parent !== null && first !== undefined && first.parentHash !== parent) return 'reorg';
  for (const [n, hash] of batch.logHashes) if (headers.has(n) && headers.get(n)!.hash !== hash) return 'torn';
  for (const [n, h] of headers) {
    const prev = headers.get(n - 1);
    if (prev !== undefined && h.parentHash !== prev.hash) return 'torn';
  }
  return 'ok';
}

/**
 * Whether the node's block `n` (at or below the position) differs from the kept one: a reorg of
 * blocks already indexed. False when the block is not kept (nothing to compare with).
 */
async function diverged(o: ChainRun, node: Node, n: number): Promise<boolean> {
  const kept = (await o.services.repos.indexer.blocks(o.config.chain)).find((b) => b.number === n);
  if (kept === undefined) return false;
  node.forget();
  return (await node.header(n)).hash !== kept.hash;
}

/**
 * Follows a reorg (docs/indexer.md, Reorgs): finds the common ancestor of the kept blocks and the
 * node's chain, retracts what the journaled batches after it added (writing back the records and
 * the state rows as they were before them) and rolls the position back, all in the retraction's
 * one transaction. Answers the new position, or null when the node's chain holds the position
 * after all. Throws DeepReorg, having removed nothing, when no kept block is on the node's chain.
 */
async function followReorg(o: ChainRun, node: Node): Promise<IndexedBlock | null> {
  const { config: c, log } = o;
  const repo = o.services.repos.indexer;
  node.forget();
  const position = await repo.position(c.chain);
  if (position === undefined) return null;
  const kept = await repo.blocks(c.chain);
  const head = await node.head();
  const ancestor = await findAncestor(kept, head, (n) => node.header(n));
  const span = kept.length === 0 ? 'none' : `${kept[0]!.number}-${kept.at(-1)!.number}`;
  if (ancestor === null) {
    throw new DeepReorg(
      `reorg deeper than reorgDepth (${c.reorgDepth}) on ${c.chain}: none of the kept blocks ${span} is on the node's chain; the indexer stops with nothing removed`,
    );
  }
  if (ancestor >= position.number) return null;
  const from = rollbackStart(await repo.batches(c.chain), ancestor, position.number);
  if (from === null) {
    throw new DeepReorg(
      `reorg deeper than the undo journal on ${c.chain}: the common ancestor ${ancestor} is before the journaled blocks; the indexer stops with nothing removed`,
    );
  }
  const journal = await repo.journal(c.chain, from);
  const built = buildRetraction(await loadRows(repo, c.chain), journal);
  // What the orphaned blocks added, as the store keys it on this chain (docs/chains.md).
  const retraction = retractionOn(built.retraction, c.chain, o.services.chains);
  const { restore } = built;
  const to = { number: from - 1, hash: kept.find((b) => b.number === from)?.parentHash ?? (await node.header(from - 1)).hash };
  const now = Math.floor(o.nowMs() / 1000);
  const result = await o.services.ingest.retract(retraction, { within: (tx) => repo.rollback(tx, { chain: c.chain, to, restore, now }) });
  const depth = position.number - ancestor;
  const blocks = position.number - from + 1;
  o.metrics?.reorg(c.chain, result.removed);
  o.metrics?.indexed(c.chain, to.number);
  o.progress.summary.reorgs += 1;
  o.progress.indexed = to.number;
  log.warn(
    { chain: c.chain, depth, ancestor, blocks, trades: result.removed, markets: retraction.markets.length, tokens: retraction.tokens.length },
    `reorg on ${c.chain}: ${depth} block${depth === 1 ? '' : 's'} after ${ancestor} orphaned; ${blocks} rolled back, ${result.removed} trade${result.removed === 1 ? '' : 's'} removed`,
  );
  return { number: to.number, hash: to.hash, parentHash: '' };
}

async function commit(
  o: ChainRun,
  batch: Batch,
  blocks: IndexedBlock[],
  state: ChainState,
  keepFrom: number,
  journal: IndexerCommit['journal'],
): Promise<void> {
  const records: NumberedRecord[] = [];
  batch.records.forEach((value, i) => {
    // On the chain this indexer reads: its token and market addresses become that chain's store keys.
    const parsed = parseRecord(recordOn(value, o.config.chain), o.services.chains);
    if (parsed.ok) records.push({ line: i + 1, record: parsed.record });
    else o.log.warn({ record: value, error: parsed.error }, 'the indexer made a record the ingest refuses; skipped');
  });
  const rows = dirtyRows(state);
  const repo = o.services.repos.indexer;
  const now = Math.floor(o.nowMs() / 1000);
  await o.services.ingest.writeSliced(records, { within: (tx) => repo.commit(tx, { chain: o.config.chain, blocks, keepFrom, state: rows, now, journal }) });
}

function count(o: ChainRun, batch: Batch): void {
  const s = o.progress.summary;
  s.trades += batch.counts.trades;
  s.markets += batch.counts.markets;
  s.tokens += batch.counts.tokens;
  o.metrics?.trades(o.config.chain, batch.counts.trades);
  if (batch.counts.poolsSkipped > 0) o.metrics?.skipped(o.config.chain, 'pool', batch.counts.poolsSkipped);
  if (batch.counts.tokensSkipped > 0) o.metrics?.skipped(o.config.chain, 'token', batch.counts.tokensSkipped);
  if (batch.counts.noTrade > 0) o.metrics?.skipped(o.config.chain, 'swap', batch.counts.noTrade);
}
