/**
 * The chain indexer's rows on PostgreSQL: the twin of src/store/sqlite/indexer-repo.ts (same answers for
 * the same calls). Reads take any pool connection; `commit` writes on the ingest transaction's
 * client, a few multi-row statements per batch.
 */
import type { Added, IndexedBlock, IndexerRepo, StateRow } from '../port/repos.js';
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
      const j = c.journal;
      if (j !== undefined) {
        await client.query(
          'INSERT INTO indexer_batches (chain, first, last) VALUES ($1, $2, $3) ON CONFLICT (chain, first) DO UPDATE SET last = excluded.last',
          [c.chain, j.first, j.last],
        );
        // The body before the batch is the store's row now: the batch's own rows are written after this.
        const keys = [...last.values()];
        if (keys.length > 0) {
          await client.query(
            `INSERT INTO indexer_undo (chain, number, kind, key, body)
             SELECT $1, $2, u.kind, u.key, s.body FROM unnest($3::text[], $4::text[]) AS u(kind, key)
             LEFT JOIN indexer_state s ON s.chain = $1 AND s.kind = u.kind AND s.key = u.key
             ON CONFLICT (chain, number, kind, key) DO NOTHING`,
            [c.chain, j.first, keys.map((s) => s.kind), keys.map((s) => s.key)],
          );
        }
        if (j.added.length > 0) {
          await client.query(
            `INSERT INTO indexer_added (chain, number, what, key) SELECT $1, $2, * FROM unnest($3::text[], $4::text[])
             ON CONFLICT (chain, number, what, key) DO NOTHING`,
            [c.chain, j.first, j.added.map((a) => a.what), j.added.map((a) => a.key)],
          );
        }
      }
      // A batch's journal goes once none of its blocks is kept any more.
      const oldest = await row<{ first: string | null }>(client, 'SELECT min(first) AS first FROM indexer_batches WHERE chain = $1 AND last >= $2', [
        c.chain,
        c.keepFrom,
      ]);
      const keep = oldest?.first == null ? c.keepFrom : Number(oldest.first);
      await client.query('DELETE FROM indexer_batches WHERE chain = $1 AND first < $2', [c.chain, keep]);
      await client.query('DELETE FROM indexer_undo WHERE chain = $1 AND number < $2', [c.chain, keep]);
      await client.query('DELETE FROM indexer_added WHERE chain = $1 AND number < $2', [c.chain, keep]);
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
    async batches(chain) {
      const found = await rows<{ first: string; last: string }>(db, 'SELECT first, last FROM indexer_batches WHERE chain = $1 ORDER BY first', [chain]);
      return found.map((r) => ({ first: Number(r.first), last: Number(r.last) }));
    },
    async journal(chain, from) {
      const undo = await rows<StateRow>(db, 'SELECT kind, key, body FROM indexer_undo WHERE chain = $1 AND number >= $2 ORDER BY number DESC', [chain, from]);
      // Newest first, so the oldest batch's body (the state before all of them) is the one kept.
      const before = new Map<string, StateRow>();
      for (const r of undo) before.set(`${r.kind}\u0000${r.key}`, { kind: r.kind, key: r.key, body: r.body });
      const added = await rows<Added>(db, 'SELECT what, key FROM indexer_added WHERE chain = $1 AND number >= $2 ORDER BY number, what, key', [chain, from]);
      return { undo: [...before.values()], added: added.map((a) => ({ what: a.what, key: a.key })) };
    },
    async rollback(tx, r) {
      const client = clientOf(tx);
      await client.query('DELETE FROM indexer_blocks WHERE chain = $1 AND number > $2', [r.chain, r.to.number]);
      await client.query('DELETE FROM indexer_batches WHERE chain = $1 AND first > $2', [r.chain, r.to.number]);
      await client.query('DELETE FROM indexer_undo WHERE chain = $1 AND number > $2', [r.chain, r.to.number]);
      await client.query('DELETE FROM indexer_added WHERE chain = $1 AND number > $2', [r.chain, r.to.number]);
      const put = r.restore.filter((s) => s.body !== null);
      const drop = r.restore.filter((s) => s.body === null);
      if (put.length > 0) {
        await client.query(
          `INSERT INTO indexer_state (chain, kind, key, body)
           SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])
           ON CONFLICT (chain, kind, key) DO UPDATE SET body = excluded.body`,
          [r.chain, put.map((s) => s.kind), put.map((s) => s.key), put.map((s) => s.body)],
        );
      }
      if (drop.length > 0) {
        await client.query('DELETE FROM indexer_state WHERE chain = $1 AND (kind, key) IN (SELECT * FROM unnest($2::text[], $3::text[]))', [
          r.chain,
          drop.map((s) => s.kind),
          drop.map((s) => s.key),
        ]);
      }
      await client.query(
        `INSERT INTO indexer_positions (chain, number, hash, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (chain) DO UPDATE SET number = excluded.number, hash = excluded.hash, updated_at = excluded.updated_at`,
        [r.chain, r.to.number, r.to.hash, r.now],
      );
    },
  };
}
