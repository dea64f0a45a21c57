/**
 * Gives a SQLite store's space back after a large delete (`cli demo --remove`: README, Demo data).
 * SQLite keeps the pages a delete frees inside the file for later writes, and the WAL keeps the
 * size of the largest transaction since its last reset: a store of 61 trades was still 100 MB
 * plus a 95 MB WAL after the demo went. VACUUM rewrites the file without its free pages, then a
 * TRUNCATE checkpoint empties the WAL. VACUUM rewrites every page, so it runs only when free
 * pages are at least a quarter of the file. PostgreSQL has its own (docs/operations.md).
 */
import { statSync } from 'node:fs';
import type { Db } from './db.js';

export type Reclaimed = { fileBytesBefore: number; fileBytesAfter: number; walBytesBefore: number; walBytesAfter: number; vacuumed: boolean };

const size = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** Vacuums (when a quarter or more of the file is free) and truncates the WAL of the store file `db` holds; null for `:memory:`. */
export function reclaimSpace(db: Db): Reclaimed | null {
  if (db.memory) return null;
  const file = db.name;
  const fileBytesBefore = size(file);
  const walBytesBefore = size(`${file}-wal`);
  const [pages, free] = [db.pragma('page_count', { simple: true }) as number, db.pragma('freelist_count', { simple: true }) as number];
  const vacuumed = pages > 0 && free * 4 >= pages;
  if (vacuumed) db.exec('VACUUM');
  // Readers of another process (a running server) may hold the WAL a moment: the checkpoint then
  // does what it can and the WAL is reset at a later checkpoint.
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { fileBytesBefore, fileBytesAfter: size(file), walBytesBefore, walBytesAfter: size(`${file}-wal`), vacuumed };
}
