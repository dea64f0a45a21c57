/**
 * The chain indexer's rows on SQLite (docs/indexer.md, Position and faults): each chain's
 * position, its last indexed blocks and the state it carries between blocks (migration
 * 014-indexer.sql). `commit` runs inside the ingest transaction of the blocks it describes
 * (the `within` of src/services/ingest.ts), so the position never runs ahead of, or behind,
 * the records. src/store/pg/indexer-repo.ts is the PostgreSQL twin.
 */
import type { Db } from './db.js';
import type { IngestTx } from './ingest-repo.js';

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
};

export type IndexerRepo = {
  /** The chain's last indexed block, or undefined before its first commit. */
  position(chain: string): Promise<IndexedBlock | undefined>;
  /** The chain's kept blocks, oldest first. */
  blocks(chain: string): Promise<IndexedBlock[]>;
  /** Every state row of one kind: key -> body. */
  state(chain: string, kind: string): Promise<Map<string, string>>;
  /** Writes a commit in the ingest transaction `tx`; on SQLite at once (answers undefined). */
  commit(tx: IngestTx, c: IndexerCommit): Promise<void> | void;
};

type BlockRow = { number: number; hash: string; parent_hash: string };
const toBlock = (r: BlockRow): IndexedBlock => ({ number: r.number, hash: r.hash, parentHash: r.parent_hash });

export function createIndexerRepo(db: Db): IndexerRepo {
  const position = db.prepare<[string], BlockRow>(
    `SELECT p.number, p.hash, coalesce(b.parent_hash, '') AS parent_hash FROM indexer_positions p
     LEFT JOIN indexer_blocks b ON b.chain = p.chain AND b.number = p.number WHERE p.chain = ?`,
  );
  const blocks = db.prepare<[string], BlockRow>('SELECT number, hash, parent_hash FROM indexer_blocks WHERE chain = ? ORDER BY number');
  const state = db.prepare<[string, string], [string, string]>('SELECT key, body FROM indexer_state WHERE chain = ? AND kind = ?').raw();
  const setPosition = db.prepare(
    `INSERT INTO indexer_positions (chain, number, hash, updated_at) VALUES (@chain, @number, @hash, @now)
     ON CONFLICT (chain) DO UPDATE SET number = excluded.number, hash = excluded.hash, updated_at = excluded.updated_at`,
  );
  const putBlock = db.prepare(
    `INSERT INTO indexer_blocks (chain, number, hash, parent_hash) VALUES (@chain, @number, @hash, @parentHash)
     ON CONFLICT (chain, number) DO UPDATE SET hash = excluded.hash, parent_hash = excluded.parent_hash`,
  );
  const forget = db.prepare('DELETE FROM indexer_blocks WHERE chain = ? AND number < ?');
  const putState = db.prepare(
    `INSERT INTO indexer_state (chain, kind, key, body) VALUES (@chain, @kind, @key, @body)
     ON CONFLICT (chain, kind, key) DO UPDATE SET body = excluded.body`,
  );
  const dropState = db.prepare('DELETE FROM indexer_state WHERE chain = ? AND kind = ? AND key = ?');
  return {
    position: async (chain) => {
      const r = position.get(chain);
      return r === undefined ? undefined : toBlock(r);
    },
    blocks: async (chain) => blocks.all(chain).map(toBlock),
    state: async (chain, kind) => new Map(state.all(chain, kind)),
    commit(tx, c) {
      if (tx.engine !== 'sqlite') throw new Error('the SQLite indexer repo was handed a PostgreSQL transaction');
      const last = c.blocks.at(-1);
      for (const b of c.blocks) putBlock.run({ chain: c.chain, ...b });
      forget.run(c.chain, c.keepFrom);
      for (const s of c.state) {
        if (s.body === null) dropState.run(c.chain, s.kind, s.key);
        else putState.run({ chain: c.chain, kind: s.kind, key: s.key, body: s.body });
      }
      if (last !== undefined) setPosition.run({ chain: c.chain, number: last.number, hash: last.hash, now: c.now });
      return undefined;
    },
  };
}
