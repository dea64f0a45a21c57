import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { loadMigrations, migrate, openStore, SchemaTooNewError } from '../../src/store/sqlite/db.js';

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe('migrations', () => {
  it('migrates an empty store to the latest version and records it in user_version', () => {
    const store = openStore(':memory:');
    const latest = loadMigrations().at(-1)!.version;
    expect(store.db.pragma('user_version', { simple: true })).toBe(latest);
    const tables = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    for (const t of ['tokens', 'markets', 'trades', 'holders', 'candles', 'tenants', 'plans', 'api_keys', 'meta']) expect(tables).toContain(t);
    const plans = store.db.prepare('SELECT name, requests_per_minute, max_keys, max_subscriptions FROM plans ORDER BY requests_per_minute').raw().all();
    expect(plans).toEqual([
      ['free', 300, 3, 10],
      ['pro', 3000, 20, 500],
      ['enterprise', 30000, 100, 10000],
    ]);
    store.close();
  });

  it('is a no-op the second time', () => {
    const store = openStore(':memory:');
    const v = store.db.pragma('user_version', { simple: true });
    expect(migrate(store.db)).toEqual({ from: v, to: v });
    store.close();
  });

  it('uses WAL and foreign keys on a file store', () => {
    dir = mkdtempSync(join(tmpdir(), 'mig-'));
    const store = openStore(join(dir, 'a.db'));
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    store.close();
  });

  it('refuses a store whose schema is newer than the code', () => {
    dir = mkdtempSync(join(tmpdir(), 'mig-'));
    const path = join(dir, 'b.db');
    const raw = new Database(path);
    raw.pragma('user_version = 999');
    raw.close();
    expect(() => openStore(path)).toThrow(SchemaTooNewError);
  });

  it('leaves a store untouched when a migration fails half-way', () => {
    const db = new Database(':memory:');
    const bad = [{ version: 1, name: '001-x.sql', sql: 'CREATE TABLE a (x); CREATE TABLE a (y);' }];
    expect(() => migrate(db, bad)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'a'").pluck().get()).toBe(0);
  });
});
