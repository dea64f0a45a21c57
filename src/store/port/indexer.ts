/**
 * The port's indexer area (docs/indexer.md, Position and faults, Reorgs): each chain's position,
 * its last indexed blocks, the state it carries between blocks and the undo journal of its last
 * reorgDepth blocks, as every engine keeps them. `commit` runs inside the ingest transaction of
 * the blocks it describes, so the position never runs ahead of, or behind, the records; `rollback`
 * runs inside the retraction's transaction.
 */
import type { IngestTx } from './ingest.js';

/** An indexed block: its number, hash and parent's hash. */
export type IndexedBlock = { number: number; hash: string; parentHash: string };

/** One row of carried state; `body` null deletes it. */
export type StateRow = { kind: string; key: string; body: string | null };

/** What one committed batch of blocks moves: the position, the blocks kept, the state changed. */
export type IndexerCommit = {
  chain: string;
  /** The batch's blocks in order; the last is the new position. */
  blocks: readonly IndexedBlock[];
  /** Blocks below this number are forgotten (the last reorgDepth are kept). */
  keepFrom: number;
  state: readonly StateRow[];
  now: number;
  /**
   * Journal this batch (blocks first..last): the state rows' bodies before it, taken from the
   * store before `state` is written, and what it added. Left out far from the head, where no
   * reorg reaches (such a batch cannot be undone).
   */
  journal?: { first: number; last: number; added: readonly Added[] };
};

/** Something a batch added to the store: a trade (`signature:logIndex`), a market (pool) or a token. */
export type Added = { what: 'trade' | 'market' | 'token'; key: string };

/** A journaled batch of blocks. */
export type JournaledBatch = { first: number; last: number };

/** What the batches from block `from` on changed: the state as it was before them, and what they added. */
export type Journal = {
  /** Each state row they changed with its body before the first of them that changed it (null: absent). */
  undo: StateRow[];
  added: Added[];
};

/** Rolls a chain back: its position to `to`, its blocks and journal after it dropped, `restore` written. */
export type IndexerRollback = { chain: string; to: { number: number; hash: string }; restore: readonly StateRow[]; now: number };

export type IndexerRepo = {
  /** The chain's last indexed block, or undefined before its first commit. */
  position(chain: string): Promise<IndexedBlock | undefined>;
  /** The chain's kept blocks, oldest first. */
  blocks(chain: string): Promise<IndexedBlock[]>;
  /** Every state row of one kind: key -> body. */
  state(chain: string, kind: string): Promise<Map<string, string>>;
  /** Writes a commit in the ingest transaction `tx`; on SQLite at once (answers undefined). */
  commit(tx: IngestTx, c: IndexerCommit): Promise<void> | void;
  /** The chain's journaled batches, oldest first. */
  batches(chain: string): Promise<JournaledBatch[]>;
  /** The journal of the batches starting at or after block `from`. */
  journal(chain: string, from: number): Promise<Journal>;
  /** Writes a rollback in the retraction's transaction `tx`; on SQLite at once. */
  rollback(tx: IngestTx, r: IndexerRollback): Promise<void> | void;
};
