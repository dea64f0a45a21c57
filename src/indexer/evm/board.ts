/**
 * Where /healthz reads the indexers from (docs/indexer.md, Seeing it): the status of the indexer
 * this process runs, or, on an instance that does not hold the indexer job (PostgreSQL: one
 * instance runs it), each configured chain's committed position as the store holds it.
 */
import type { IndexerRepo } from '../../store/port/repos.js';

/** One chain's indexer as /healthz shows it. */
export type IndexerStatus = { chain: string; head: number; indexed: number; lag: number; state: 'backfilling' | 'following' | 'stopped' };

export type IndexerBoard = {
  /** Names the configured chains (INDEXER_CONFIG): /healthz shows `indexers` from then on. */
  configure(chains: readonly string[]): void;
  /** The running indexer's status source, or null when it stopped running here. */
  attach(status: (() => IndexerStatus[]) | null): void;
  /** Null when no indexer is configured. */
  status(): Promise<IndexerStatus[] | null>;
};

export function createIndexerBoard(repo: IndexerRepo): IndexerBoard {
  let chains: readonly string[] | null = null;
  let running: (() => IndexerStatus[]) | null = null;
  return {
    configure(c) {
      chains = [...c];
    },
    attach(status) {
      running = status;
    },
    async status() {
      if (chains === null) return null;
      if (running !== null) return running();
      // Another instance runs the job: its progress is what it committed.
      const out: IndexerStatus[] = [];
      for (const chain of chains) {
        const p = await repo.position(chain);
        const indexed = p?.number ?? 0;
        out.push({ chain, head: indexed, indexed, lag: 0, state: p === undefined ? 'backfilling' : 'following' });
      }
      return out;
    },
  };
}
