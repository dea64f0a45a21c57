/**
 * The chain indexer's rows on SQLite (docs/indexer.md, Position and faults, Reorgs): each chain's
 * position, its last indexed blocks, the state it carries between blocks (migration
 * 014-indexer.sql) and the undo journal of its last reorgDepth blocks (016-indexer-journal.sql).
 * `commit` runs inside the ingest transaction of the blocks it describes (the `within` of
 * src/services/ingest.ts), so the position never runs ahead of, or behind, the records; `rollback`
 * runs inside the retraction's transaction. src/store/pg/indexer-repo.ts is the PostgreSQL twin.
 */
import type { Db } from './db.js';
import type { Added, IndexedBlock, IndexerRepo, StateRow } from '../port/indexer.js';

// The interface and row types are the port's (src/store/port/indexer.ts), named here too.
export type { Added, IndexedBlock, IndexerCommit, IndexerRepo, IndexerRollback, Journal, JournaledBatch, StateRow } from '../port/indexer.js';

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
  const putBatch = db.prepare('INSERT OR REPLACE INTO indexer_batches (chain, first, last) VALUES (?, ?, ?)');
  // The body before the batch is the store's row now: the batch's own rows are written after this.
  const putUndo = db.prepare(
    `INSERT OR IGNORE INTO indexer_undo (chain, number, kind, key, body)
     VALUES (@chain, @number, @kind, @key, (SELECT body FROM indexer_state WHERE chain = @chain AND kind = @kind AND key = @key))`,
  );
  const putAdded = db.prepare('INSERT OR IGNORE INTO indexer_added (chain, number, what, key) VALUES (?, ?, ?, ?)');
  // A batch's journal goes once none of its blocks is kept any more.
  const oldest = db.prepare<[string, number], number | null>('SELECT min(first) FROM indexer_batches WHERE chain = ? AND last >= ?').pluck();
  const pruneBatches = db.prepare('DELETE FROM indexer_batches WHERE chain = ? AND first < ?');
  const pruneUndo = db.prepare('DELETE FROM indexer_undo WHERE chain = ? AND number < ?');
  const pruneAdded = db.prepare('DELETE FROM indexer_added WHERE chain = ? AND number < ?');
  const batches = db.prepare<[string], { first: number; last: number }>('SELECT first, last FROM indexer_batches WHERE chain = ? ORDER BY first');
  const undo = db.prepare<[string, number], { kind: string; key: string; body: string | null }>(
    'SELECT kind, key, body FROM indexer_undo WHERE chain = ? AND number >= ? ORDER BY number DESC',
  );
  const added = db.prepare<[string, number], { what: Added['what']; key: string }>(
    'SELECT what, key FROM indexer_added WHERE chain = ? AND number >= ? ORDER BY number, what, key',
  );
  const dropBlocksAfter = db.prepare('DELETE FROM indexer_blocks WHERE chain = ? AND number > ?');
  const dropBatchesAfter = db.prepare('DELETE FROM indexer_batches WHERE chain = ? AND first > ?');
  const dropUndoAfter = db.prepare('DELETE FROM indexer_undo WHERE chain = ? AND number > ?');
  const dropAddedAfter = db.prepare('DELETE FROM indexer_added WHERE chain = ? AND number > ?');
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
      const j = c.journal;
      if (j !== undefined) {
        putBatch.run(c.chain, j.first, j.last);
        for (const s of c.state) putUndo.run({ chain: c.chain, number: j.first, kind: s.kind, key: s.key });
        for (const a of j.added) putAdded.run(c.chain, j.first, a.what, a.key);
      }
      const keep = oldest.get(c.chain, c.keepFrom) ?? c.keepFrom;
      pruneBatches.run(c.chain, keep);
      pruneUndo.run(c.chain, keep);
      pruneAdded.run(c.chain, keep);
      for (const s of c.state) {
        if (s.body === null) dropState.run(c.chain, s.kind, s.key);
        else putState.run({ chain: c.chain, kind: s.kind, key: s.key, body: s.body });
      }
      if (last !== undefined) setPosition.run({ chain: c.chain, number: last.number, hash: last.hash, now: c.now });
      return undefined;
    },
    batches: async (chain) => batches.all(chain),
    journal: async (chain, from) => {
      // Newest first, so the oldest batch's body (the state before all of them) is the one kept.
      const before = new Map<string, StateRow>();
      for (const r of undo.all(chain, from)) before.set(`${r.kind}\u0000${r.key}`, r);
      return { undo: [...before.values()], added: added.all(chain, from) };
    },
    rollback(tx, r) {
      if (tx.engine !== 'sqlite') throw new Error('the SQLite indexer repo was handed a PostgreSQL transaction');
      dropBlocksAfter.run(r.chain, r.to.number);
      dropBatchesAfter.run(r.chain, r.to.number);
      dropUndoAfter.run(r.chain, r.to.number);
      dropAddedAfter.run(r.chain, r.to.number);
      for (const s of r.restore) {
        if (s.body === null) dropState.run(r.chain, s.kind, s.key);
        else putState.run({ chain: r.chain, kind: s.kind, key: s.key, body: s.body });
      }
      setPosition.run({ chain: r.chain, number: r.to.number, hash: r.to.hash, now: r.now });
      return undefined;
    },
  };
}
