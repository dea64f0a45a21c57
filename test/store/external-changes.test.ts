/**
 * The store notices another process's writes by itself: the first statement it runs in a turn of
 * the event loop checks PRAGMA data_version, so no caller has to remember to (docs/architecture.md,
 * The store and what stays exact).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { openStore, type Change, type Store } from '../../src/store/sqlite/db.js';
import { createStatsRepo } from '../../src/store/sqlite/stats-repo.js';

let dir: string;
let ours: Store;
let other: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'external-changes-'));
  ours = openStore(join(dir, 'tokens.db'));
  other = openStore(join(dir, 'tokens.db'));
});

afterEach(() => {
  ours.close();
  other.close();
  rmSync(dir, { recursive: true, force: true });
});

const insertToken = (store: Store, address: string) =>
  store.db.prepare("INSERT INTO tokens (address, symbol, name, decimals, created_at, updated_at) VALUES (?, 'S', 'N', 6, 0, 0)").run(address);

describe('the store and other processes', () => {
  it('tells its listeners before the first statement that reads after another connection wrote', async () => {
    const heard: Change[] = [];
    ours.onChange((c) => heard.push(c));
    const stats = createStatsRepo(ours.db);
    expect(stats.tokens()).toBe(0);
    await nextTurn();
    insertToken(other, 'A1');
    expect(heard).toEqual([]);
    await nextTurn();
    expect(stats.tokens()).toBe(1);
    expect(heard).toEqual([{ tokens: 'all', accounts: true }]);
    expect(ours.version()).toBe(1);
  });

  it('checks once per turn: a write seen later in the same turn waits for the next turn', async () => {
    const heard: Change[] = [];
    ours.onChange((c) => heard.push(c));
    const stats = createStatsRepo(ours.db);
    await nextTurn();
    expect(stats.tokens()).toBe(0);
    insertToken(other, 'B1');
    expect(stats.tokens()).toBe(1);
    expect(heard).toHaveLength(0);
    await nextTurn();
    stats.trades();
    expect(heard).toHaveLength(1);
  });

  it('does not count its own writes as another process’s', async () => {
    const heard: Change[] = [];
    ours.onChange((c) => heard.push(c));
    await nextTurn();
    insertToken(ours, 'C1');
    await nextTurn();
    expect(createStatsRepo(ours.db).tokens()).toBe(1);
    expect(heard).toEqual([]);
  });
});
