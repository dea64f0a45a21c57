/**
 * Store files readable by their owner only (docs/operations.md, Backups and file permissions): a
 * SQLite store holds webhook secrets, the cursor secret, password and key hashes. SQLite gives
 * the -wal, -shm and -journal files it creates the mode of the database file, so creating that
 * file 0600 before SQLite opens it makes all of them 0600, whatever the umask.
 */
import { closeSync, openSync } from 'node:fs';

/** Creates `path` empty with mode 0600 when nothing is there yet; an existing file is left as it is. */
export function createPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
