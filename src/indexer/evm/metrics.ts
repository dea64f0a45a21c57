/**
 * What the indexer reports to /metrics (docs/indexer.md, Seeing it): the `indexer_*` series. The
 * services' metrics implement it; tests and the CLI may leave it out.
 */
import type { RpcOutcome } from './rpc.js';

export type IndexerMetrics = {
  head(chain: string, block: number): void;
  indexed(chain: string, block: number): void;
  trades(chain: string, n: number): void;
  /** One reorg followed, and the trades it removed. */
  reorg(chain: string, removedTrades: number): void;
  rpc(chain: string, method: string, outcome: RpcOutcome): void;
  /** Pools skipped (no quote, unreadable token) and swaps that made no trade. */
  skipped(chain: string, what: 'pool' | 'token' | 'swap', n: number): void;
};
