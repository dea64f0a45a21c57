/**
 * The chain indexer's rows on PostgreSQL: the twin of src/store/indexer-repo.ts (same answers for
 * the same calls). Reads take any pool connection; `commit` writes on the ingest transaction's
 * client, a few multi-row statements per batch.
 */
import type { IndexedBlock, IndexerRepo } from '../indexer-repo.js';
import { clientOf } from './ingest-tx.js';
import { row, rows, type Queryable } from './pg-repo.js';

type BlockRow = { number: string; hash: string; parent_hash: string };
const toBlock = (r: BlockRow): IndexedBlock => ({ number: Number(r.number), hash: r.hash, parentHash: r.parent_hash });

export function createPgIndexerRepo(db: Queryable): IndexerRepo {
  return {
    async position(chain) {
      const r = await row<BlockRow>(
        db,
        `SELECT p.number, p.hash, coalesce(b.parent_hash, '') AS parent_hash FROM indexer_positions p
         LEFT JOIN indexer_blocks b ON b.chain = p.chain AND b.number = p.number WHERE p.chain = $1`,
        [chain],
      );
      return r === undefined ? undefined : toBlock(r);
    },
    async blocks(chain) {
      return (await rows<BlockRow>(db, 'SELECT number, hash, parent_hash FROM indexer_blocks WHERE chain = $1 ORDER BY number', [chain])).map(toBlock);
    },
    async state(chain, kind) {
      const found = await rows<{ key: string; body: string }>(db, 'SELECT key, body FROM indexer_state WHERE chain = $1 AND kind = $2', [chain, kind]);
      return new Map(found.map((r) => [r.key, r.body]));
    },
    async commit(tx, c) {
      const client = clientOf(tx);
      if (c.blocks.length > 0) {
        await client.query(
          `INSERT INTO indexer_blocks (chain, number, hash, parent_hash)
           SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[])
           ON CONFLICT (chain, number) DO UPDATE SET hash = excluded.hash, parent_hash = excluded.parent_hash`,
          [c.chain, c.blocks.map((b) => b.number), c.blocks.map((b) => b.hash), c.blocks.map((b) => b.parentHash)],
        );
      }
      await client.query('DELETE FROM indexer_blocks WHERE chain = $1 AND number < $2', [c.chain, c.keepFrom]);
      // A key changed twice in one commit keeps its last body (one statement cannot upsert a row twice).
      const last = new Map<string, { kind: string; key: string; body: string | null }>();
      for (const s of c.state) last.set(`${s.kind}\u0000${s.key}`, s);
      const put = [...last.values()].filter((s) => s.body !== null);
      const drop = [...last.values()].filter((s) => s.body === null);
      if (put.length > 0) {
        await client.query(
          `INSERT INTO indexer_state (chain, kind, key, body)
           SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])
           ON CONFLICT (chain, kind, key) DO UPDATE SET body = excluded.body`,
          [c.chain, put.map((s) => s.kind), put.map((s) => s.key), put.map((s) => s.body)],
        );
      }
      if (drop.length > 0) {
        await client.query('DELETE FROM indexer_state WHERE chain = $1 AND (kind, key) IN (SELECT * FROM unnest($2::text[], $3::text[]))', [
          c.chain,
          drop.map((s) => s.kind),
          drop.map((s) => s.key),
        ]);
      }
      const end = c.blocks.at(-1);
      if (end !== undefined) {
        await client.query(
          `INSERT INTO indexer_positions (chain, number, hash, updated_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (chain) DO UPDATE SET number = excluded.number, hash = excluded.hash, updated_at = excluded.updated_at`,
          [c.chain, end.number, end.hash, c.now],
        );
      }
    },
  };
}
