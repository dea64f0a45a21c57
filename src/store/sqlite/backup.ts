/**
 * Online backup of a store file (SQLite's backup API through better-sqlite3 `db.backup`), page by
 * page, while the server keeps reading and writing. The source is opened read-only and without
 * migrating: a backup must not change the store it copies.
 */
import Database from 'better-sqlite3';
import { chmodSync } from 'node:fs';
import { BUSY_TIMEOUT_MS } from './db.js';
import { createPrivateFile } from './private-file.js';

/** Pages per step: large enough to be quick, small enough to let the server write between steps. */
const PAGES_PER_STEP = 2000;

/**
 * Copies the store at `source` to `target`; `progress` hears the pages done after each step.
 * Returns the pages copied. The copy holds what the store does: it is made 0600.
 */
export async function backupStore(source: string, target: string, progress: (done: number, total: number) => void): Promise<number> {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  try {
    createPrivateFile(target);
    // An existing target (the caller removes its own partial first) is made private too.
    chmodSync(target, 0o600);
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
