/**
 * The EVM indexer (docs/indexer.md): for each configured chain, backfill from the stored
 * position (or startBlock on a fresh store) by eth_getLogs over adaptive ranges, then follow the
 * head. Each batch of blocks is written through the one ingest path (so events, webhooks and the
 * stream see its trades as any ingest's) with the chain's position and carried state committed
 * in the same transaction: a crash at any moment resumes with nothing lost or doubled.
 */
import type { Logger } from 'pino';
import type { Services } from '../../services/index.js';
import type { IndexerConfig } from './config.js';
import { runChain, type ChainProgress, type ChainSummary } from './chain.js';
import type { IndexerStatus } from './board.js';
import type { IndexerMetrics } from './metrics.js';
import { indexerMetrics } from './prom.js';

export type IndexSummary = { chains: ChainSummary[] };
export type IndexerHandle = { done: Promise<IndexSummary>; status(): IndexerStatus[]; stop(): Promise<void> };

export type { ChainSummary, IndexerMetrics, IndexerStatus };

/**
 * Starts every configured chain's indexer on the services' store; with `until` each stops once
 * indexed to that block and `done` resolves with the summary. Without it `done` resolves after
 * stop(). `metrics` defaults to the `indexer_*` series on the services' registry. A chain whose indexer fails for good (not a node fault: those are retried) is
 * `stopped`, logged, and `done` rejects with its error.
 */
export function startIndexer(opts: {
  config: IndexerConfig;
  services: Services;
  log: Logger;
  until?: number;
  metrics?: IndexerMetrics;
  nowMs?: () => number;
  /** How often the backfill logs its progress (default 5000 ms; docs/indexer.md: at least every 10 s). */
  progressEveryMs?: number;
}): IndexerHandle {
  const abort = new AbortController();
  const metrics = opts.metrics ?? indexerMetrics(opts.services.metrics.registry);
  const progress: ChainProgress[] = opts.config.chains.map((c) => ({
    chain: c.chain,
    head: 0,
    indexed: 0,
    state: 'backfilling',
    summary: { chain: c.chain, fromBlock: 0, toBlock: 0, blocks: 0, trades: 0, markets: 0, tokens: 0, reorgs: 0 },
  }));
  const runs = opts.config.chains.map((c, i) =>
    runChain({
      config: c,
      services: opts.services,
      log: opts.log.child({ chain: c.chain }),
      until: opts.until,
      metrics,
      signal: abort.signal,
      progress: progress[i]!,
      nowMs: opts.nowMs ?? Date.now,
      progressEveryMs: opts.progressEveryMs ?? 5000,
    }).finally(() => {
      progress[i]!.state = 'stopped';
    }),
  );
  const done = Promise.all(runs).then(() => ({ chains: progress.map((p) => p.summary) }));
  // A failure is reported through `done`; an unobserved rejection must not end the process.
  done.catch(() => undefined);
  return {
    done,
    status: () => progress.map((p) => ({ chain: p.chain, head: p.head, indexed: p.indexed, lag: Math.max(0, p.head - p.indexed), state: p.state })),
    async stop() {
      abort.abort();
      await Promise.allSettled(runs);
    },
  };
}
