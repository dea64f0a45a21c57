/**
 * A SQLite store holds webhook secrets, the cursor secret, password and key hashes: its file, WAL
 * and SHM, and a backup of it, are created readable by their owner only (0600), whatever the
 * umask (docs/operations.md, Backups and file permissions). SQLite-only: files of a store.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/sqlite/db.js';
import { backupStore } from '../../src/store/sqlite/backup.js';

let dir: string;
let umask: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'file-mode-'));
  // The most permissive umask: nothing but our own mode keeps the files private.
  umask = process.umask(0);
});
afterEach(() => {
  process.umask(umask);
  rmSync(dir, { recursive: true, force: true });
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe('store file permissions', () => {
  it('creates the store, its WAL and its SHM 0600', () => {
    const path = join(dir, 'sub', 'tokens.db');
    const store = openStore(path, { backgroundCheckpoint: false });
    try {
      store.db.prepare("INSERT INTO meta (key, value) VALUES ('probe', 'x')").run();
      expect([mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual([0o600, 0o600, 0o600]);
    } finally {
      store.close();
    }
  });

  it('writes a backup 0600, also over an existing file', async () => {
    const path = join(dir, 'tokens.db');
    openStore(path, { backgroundCheckpoint: false }).close();
    const fresh = join(dir, 'copy.db');
    expect(await backupStore(path, fresh, () => undefined)).toBeGreaterThan(0);
    expect(mode(fresh)).toBe(0o600);
    const old = join(dir, 'old.db');
    writeFileSync(old, '', { mode: 0o644 });
    await backupStore(path, old, () => undefined);
    expect(mode(old)).toBe(0o600);
  });
});
