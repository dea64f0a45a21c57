/**
 * Whether another connection has a SQLite store open (docs/operations.md, Many instances: moving a
 * store to PostgreSQL). In WAL mode every open connection holds a shared lock on the store's
 * shared memory, so an exclusive lock is refused at once while a server, a CLI or a backup has the
 * file open, and granted when nothing does.
 */
import Database from 'better-sqlite3';

/** True when another connection (any process) has the store at `path` open; the file must exist. */
export function storeInUse(path: string): boolean {
  const db = new Database(path, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw err;
  } finally {
    db.close();
  }
}
