/**
 * The meta key/value table on PostgreSQL: the twin of src/store/sqlite/meta-repo.ts (same answers for
 * the same calls, each a promise). getOrCreate() is safe when instances race: the first insert
 * wins (ON CONFLICT DO NOTHING) and every caller reads back the value that won, so all instances
 * sign cursors with one secret.
 */
import { randomBytes } from 'node:crypto';
import type { Async } from '../port/async.js';
import type { MetaRepo } from '../port/repos.js';
import { row, type Queryable } from './pg-repo.js';

export type PgMetaRepo = Async<MetaRepo>;

export function createPgMetaRepo(db: Queryable): PgMetaRepo {
  const get = async (key: string): Promise<string | undefined> => (await row<{ value: string }>(db, 'SELECT value FROM meta WHERE key = $1', [key]))?.value;
  return {
    get,
    async set(key, value) {
      await db.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
    },
    async getOrCreate(key, make) {
      const found = await get(key);
      if (found !== undefined) return found;
      await db.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, make()]);
      return (await get(key))!;
    },
  };
}

/** The secret that signs cursors, as cursorSecret() of src/store/sqlite/meta-repo.ts keeps it. */
export async function pgCursorSecret(db: Queryable): Promise<Buffer> {
  const hex = await createPgMetaRepo(db).getOrCreate('cursor_secret', () => randomBytes(32).toString('hex'));
  return Buffer.from(hex, 'hex');
}
