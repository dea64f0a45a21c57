/**
 * The `indexer_*` series of /metrics (docs/indexer.md, Seeing it), on the services' registry:
 * head and indexed block gauges, trade, reorg and removed-trade counters, RPC calls by method
 * and outcome, and what was skipped (pools without a quote or with an unreadable token, swaps
 * that make no trade). Made once per registry, so an indexer started again in the same process
 * counts on.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { IndexerMetrics } from './metrics.js';

const made = new WeakMap<Registry, IndexerMetrics>();

export function indexerMetrics(registry: Registry): IndexerMetrics {
  const found = made.get(registry);
  if (found !== undefined) return found;
  const registers = [registry];
  const head = new Gauge({ name: 'indexer_head_block', help: "The node's newest block, as the indexer last read it.", labelNames: ['chain'], registers });
  const indexed = new Gauge({ name: 'indexer_indexed_block', help: 'The last block the indexer committed.', labelNames: ['chain'], registers });
  const reorgs = new Counter({ name: 'indexer_reorgs_total', help: 'Reorgs the indexer followed.', labelNames: ['chain'], registers });
  const removed = new Counter({ name: 'indexer_removed_trades_total', help: 'Trades removed with orphaned blocks.', labelNames: ['chain'], registers });
  const trades = new Counter({ name: 'indexer_trades_total', help: 'Trades the indexer wrote.', labelNames: ['chain'], registers });
  const rpc = new Counter({
    name: 'indexer_rpc_requests_total',
    help: 'JSON-RPC calls to the node, by method and outcome.',
    labelNames: ['chain', 'method', 'outcome'],
    registers,
  });
  const skipped = new Counter({
    name: 'indexer_skipped_total',
    help: 'What the indexer skipped: pools without a quote token or with an unreadable token (pool), tokens whose decimals() cannot be read (token), swaps that make no trade (swap).',
    labelNames: ['chain', 'what'],
    registers,
  });
  const m: IndexerMetrics = {
    head: (chain, block) => head.set({ chain }, block),
    indexed: (chain, block) => {
      indexed.set({ chain }, block);
      // The reorg counters exist from the start, at 0, so a dashboard can graph them.
      reorgs.inc({ chain }, 0);
      removed.inc({ chain }, 0);
    },
    trades: (chain, n) => trades.inc({ chain }, n),
    reorg: (chain, n) => {
      reorgs.inc({ chain });
      removed.inc({ chain }, n);
    },
    rpc: (chain, method, outcome) => rpc.inc({ chain, method, outcome }),
    skipped: (chain, what, n) => skipped.inc({ chain, what }, n),
  };
  made.set(registry, m);
  return m;
}
