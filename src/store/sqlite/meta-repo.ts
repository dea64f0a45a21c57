/** The meta key/value table: the cursor secret, the demo data's seed and anchor. */
import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';
import type { MetaRepo } from '../port/operations.js';

// The interface and row types are the port's (src/store/port/operations.ts), named here too.
export type { MetaRepo } from '../port/operations.js';

export function createMetaRepo(db: Db): MetaRepo {
  const get = db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck();
  const set = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const insert = db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
  return {
    get: (key) => get.get(key),
    set: (key, value) => void set.run(key, value),
    getOrCreate(key, make) {
      const found = get.get(key);
      if (found !== undefined) return found;
      insert.run(key, make());
      return get.get(key)!;
    },
  };
}

/** The secret that signs cursors; kept in the store so cursors survive restarts. */
export function cursorSecret(db: Db): Buffer {
  const hex = createMetaRepo(db).getOrCreate('cursor_secret', () => randomBytes(32).toString('hex'));
  return Buffer.from(hex, 'hex');
}
