/**
 * Online backup of a store file (SQLite's backup API through better-sqlite3 `db.backup`), page by
 * page, while the server keeps reading and writing. The source is opened read-only and without
 * migrating: a backup must not change the store it copies.
 */
import Database from 'better-sqlite3';
import { BUSY_TIMEOUT_MS } from './db.js';

/** Pages per step: large enough to be quick, small enough to let the server write between steps. */
const PAGES_PER_STEP = 2000;

/** Copies the store at `source` to `target`; `progress` hears the pages done after each step. Returns the pages copied. */
export async function backupStore(source: string, target: string, progress: (done: number, total: number) => void): Promise<number> {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  try {
    const { totalPages } = await db.backup(target, {
      progress: ({ totalPages: total, remainingPages }) => {
        progress(total - remainingPages, total);
        return PAGES_PER_STEP;
      },
    });
    return totalPages;
  } finally {
    db.close();
  }
}
