/**
 * The cost bounds of search and discovery, pinned structurally on a store of 20,000 tokens (README,
 * Search and Discovery): every statement is an index range (no full scan in its query plan), a
 * search reads a number of index rows that depends on its matches and not on the store, and
 * moving the clock recomputes only the tokens whose window changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import type { IngestRecord } from '../../src/domain/records.js';
import type { Db } from '../../src/store/db.js';
import { createWindowBoard, RECOMPUTE_SLICE } from '../../src/http/v1/window-board.js';
import { PAGES_PER_TURN, searchTokens, SEARCH_PAGE } from '../../src/http/v1/search-views.js';
import { asyncRepo } from '../../src/store/async.js';
import { createSearchIndexRepo, rebuildSearchIndex, searchIndexHook } from '../../src/store/search-index-repo.js';
import { createDiscoveryRepo } from '../../src/store/discovery-repo.js';
import { createTokenChangesRepo } from '../../src/store/token-changes-repo.js';
import { loadMigrations, migrate } from '../../src/store/db.js';
import { normalizeAddress } from '../../src/domain/address.js';
import { SORT_SLICE } from '../../src/domain/sliced-sort.js';
import { RANKINGS } from '../../src/domain/discovery.js';

const NOW = 1_700_000_000;
const TOKENS = 20_000;
const ACTIVE = 2_000;
let t: TestApp;

/** A deterministic word of `n` lower-case letters for token number `i`. */
function word(i: number, n: number, salt: number): string {
  let x = (i * 2654435761 + salt * 40503) >>> 0;
  let s = '';
  for (let k = 0; k < n; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += String.fromCharCode(97 + ((x >>> 16) % 26));
  }
  return s;
}

beforeAll(() => {
  t = makeTestApp();
  t.clock.set(NOW * 1000);
  for (let from = 0; from < TOKENS; from += 5000) {
    const batch: IngestRecord[] = [];
    for (let i = from; i < from + 5000; i++) {
      const tok = aToken({ symbol: word(i, 3 + (i % 2), 1).toUpperCase(), name: `${word(i, 5, 2)} ${word(i, 4, 3)}` });
      batch.push(tok, aMarket(tok.address, { liquidityUsd: i % 1000 }));
      if (i < ACTIVE)
        for (let k = 0; k < 3; k++) batch.push(aTrade(tok.address, { blockTime: NOW - 80_000 + i * 30 + k, volumeUsd: 1 + (i % 97), priceUsd: 1 + k }));
      else if (i < 2 * ACTIVE) batch.push(aTrade(tok.address, { blockTime: NOW - 200_000 + i }));
    }
    t.ingest(batch);
  }
}, 120_000);
afterAll(() => t?.close());

/** The statements a repo factory prepares, recorded by wrapping db.prepare. */
function preparedBy(db: Db, make: (db: Db) => unknown): string[] {
  const sources: string[] = [];
  const prepare = db.prepare.bind(db);
  const spy = new Proxy(db, {
    get: (target, key) => (key === 'prepare' ? (sql: string) => (sources.push(sql), prepare(sql)) : Reflect.get(target, key, target)),
  });
  make(spy as Db);
  return sources;
}

/** Query plan lines that read a whole table: a SCAN that is neither by index nor of a virtual table. */
function fullScans(db: Db, sql: string): string[] {
  const params = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], 0]));
  const positional = (sql.match(/\?/g) ?? []).map(() => 0);
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const rows = (Object.keys(params).length > 0 ? stmt.all(params) : stmt.all(...positional)) as { detail: string }[];
  return rows.map((r) => r.detail).filter((d) => /^SCAN /.test(d) && !/USING (COVERING )?INDEX|VIRTUAL TABLE/.test(d));
}

describe('search and discovery on 20,000 tokens', () => {
  it('plan every statement of the search index, discovery and change log repos as index ranges', () => {
    const sources = [createSearchIndexRepo, createDiscoveryRepo, createTokenChangesRepo].flatMap((make) => preparedBy(t.store.db, make));
    expect(sources.length).toBeGreaterThanOrEqual(10);
    for (const sql of sources) expect({ sql, scans: fullScans(t.store.db, sql) }).toEqual({ sql, scans: [] });
  });

  it.each([
    ['a', 'one letter in most names and symbols'],
    ['qz', 'a rare pair of letters'],
    ['ж', 'a letter in no name'],
    ['kvx', 'a rare trigram'],
    ['zzzzzz', 'nothing'],
    [word(5, 3, 1), 'a whole symbol'],
    [`${word(7, 5, 2)} ${word(7, 4, 3)}`, 'a whole name'],
  ])('answers q=%s (%s) reading rows bounded by its matches, not by the store', async (q) => {
    const board = createWindowBoard(t.store, t.services.repos, '24h');
    await board.refresh(() => t.clock.seconds());
    const index = createSearchIndexRepo(t.store.db);
    const hits = await searchTokens(asyncRepo(index), board, q, normalizeAddress(q), 100);
    // Per match kind: a symbol range, and for prefix and name the walk and the enumeration in
    // turns, each stopping within a page of the cheaper one. Here none needs more than a few pages.
    expect(index.rowsRead()).toBeLessThanOrEqual(12 * SEARCH_PAGE);
    expect(index.rowsRead()).toBeLessThan(TOKENS / 6);
    expect(hits.length).toBeLessThanOrEqual(100);
  });

  it('stops the walk and the enumeration within a page of the cheaper one (symbol prefix)', async () => {
    const board = createWindowBoard(t.store, t.services.repos, '24h');
    await board.refresh(() => t.clock.seconds());
    const index = createSearchIndexRepo(t.store.db);
    const hits = await searchTokens(asyncRepo(index), board, 'e', null, 100);
    expect(hits).toHaveLength(100);
    expect(hits.every((h) => h.matchedBy === 'symbolPrefix')).toBe(true);
    // The enumeration must read every prefix match; the walk, every token up to the 100th
    // match without volume in address order. They read pages in turn.
    const syms = t.store.db.prepare('SELECT sym, token_id FROM token_search ORDER BY address').raw().all() as [string, number][];
    const traded = new Set(board.ranking('trending').map((e) => e.t.id));
    const matches = syms.filter(([sym]) => sym.startsWith('e'));
    let walk = 0;
    for (let found = 0; found < 100 - matches.filter(([, id]) => traded.has(id)).length; walk++) {
      if (syms[walk]![0].startsWith('e') && !traded.has(syms[walk]![1])) found++;
    }
    const cheaper = Math.min(matches.length, walk);
    expect(cheaper).toBeLessThan(TOKENS / 5);
    // Plus the first page of each enumeration (symbol, prefix, name), read to see whether every
    // match fits one page.
    expect(index.rowsRead()).toBeLessThanOrEqual(2 * (cheaper + SEARCH_PAGE) + 3 * SEARCH_PAGE);
  });

  it('pauses after every PAGES_PER_TURN index pages of a walk, the first reads aside', async () => {
    const board = createWindowBoard(t.store, t.services.repos, '24h');
    await board.refresh(() => t.clock.seconds());
    const index = asyncRepo(createSearchIndexRepo(t.store.db));
    // Every index read and every pause, in order; small pages, so 'e' walks hundreds of them.
    const events: string[] = [];
    const counted = new Proxy(index, {
      get: (target, key) => {
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (...args: unknown[]) => (events.push('read'), (value as (...a: unknown[]) => unknown)(...args)) : value;
      },
    });
    const hits = await searchTokens(counted, board, 'e', null, 100, 16, async () => void events.push('pause'));
    expect(hits).toHaveLength(100);
    const runs = events
      .join(' ')
      .split('pause')
      .map((run) => run.trim().split(' ').filter(Boolean).length);
    const reads = events.filter((e) => e === 'read').length;
    // The three first reads go out together (exact symbol, prefix, name; no address here), then
    // each walk step reads one page and every fourth read is followed by a pause.
    expect(runs[0]).toBe(3 + PAGES_PER_TURN);
    expect(runs.slice(1, -1).every((n) => n === PAGES_PER_TURN)).toBe(true);
    expect(runs.length - 1).toBe(Math.floor((reads - 3) / PAGES_PER_TURN));
    expect(runs.length - 1).toBeGreaterThan(10);
    // The same answer as without pauses.
    expect(await searchTokens(index, board, 'e', null, 100, 16)).toEqual(hits);
  });

  it('reads each page of a symbol prefix from where the last ended (an index seek on (sym, address))', () => {
    const sources = preparedBy(t.store.db, createSearchIndexRepo).filter((sql) => /s\.sym < @hi/.test(sql));
    expect(sources).toHaveLength(1);
    const plan = t.store.db.prepare(`EXPLAIN QUERY PLAN ${sources[0]!}`).all({ hi: 'f', sym: 'e', after: '', n: 1 }) as { detail: string }[];
    expect(plan.map((r) => r.detail)).toEqual(['SEARCH s USING INDEX token_search_sym ((sym,address)>(?,?) AND sym<?)']);
  });

  it('recomputes only the tokens whose window changed when the clock moves or a trade arrives', async () => {
    const board = createWindowBoard(t.store, t.services.repos, '24h');
    await board.refresh(() => t.clock.seconds());
    expect(board.recomputed()).toBe(ACTIVE);
    expect(board.ranking('trending')).toHaveLength(ACTIVE);
    // Token i trades at NOW - 80,000 + 30 i (+ 0, 1, 2). At NOW + 6,700 s the trades with
    // 30 i + k <= 300 have left the 24 h window; 300 s later those with 30 i + k <= 600: tokens
    // 10 to 20 change, and tokens 0 to 19 are gone.
    t.clock.advance(6_700_000);
    await board.refresh(() => t.clock.seconds());
    const from = t.clock.seconds();
    t.clock.advance(300_000);
    const before = board.recomputed();
    await board.refresh(() => t.clock.seconds());
    const changed = createDiscoveryRepo(t.store.db).tradedBetween(from - 86_400 + 1, t.clock.seconds() - 86_400 + 1).length;
    expect(changed).toBe(11);
    expect(board.recomputed() - before).toBe(changed);
    expect(board.ranking('trending')).toHaveLength(ACTIVE - 20);
    const tok = t.store.db.prepare('SELECT address FROM tokens WHERE id = 3000').pluck().get() as string;
    t.ingest([aTrade(tok, { blockTime: t.clock.seconds() - 5, volumeUsd: 1e9 })]);
    const mid = board.recomputed();
    await board.refresh(() => t.clock.seconds());
    expect(board.recomputed() - mid).toBe(1);
    expect(board.ranking('trending')[0]!.t.address).toBe(tok);
  });
  it('sorts a rebuilt board in slices of bounded comparisons, and an update does not sort again', async () => {
    // Small slices, so about 2,000 traded tokens need many (src/domain/sliced-sort.ts pins the
    // comparisons a slice may make; the board uses SORT_SLICE).
    const limits = { run: 64, budget: 256 };
    const board = createWindowBoard(t.store, t.services.repos, '24h', { sort: limits });
    await board.refresh(() => t.clock.seconds());
    const traded = board.ranking('trending').length;
    expect(traded).toBeGreaterThan(1_900);
    // Gainers and losers are empty here (no token has the 10 trades they need): the pauses are the
    // trending sort's, at least one per `budget` comparisons of its merges.
    const pauses = board.sortPauses();
    expect(pauses).toBeGreaterThanOrEqual(traded / limits.budget);
    expect(SORT_SLICE.run).toBeLessThan(SORT_SLICE.budget);
    const { order, holds } = RANKINGS.trending;
    const all = t.store.db.prepare('SELECT id FROM tokens').pluck().all() as number[];
    const expected = all
      .flatMap((id) => board.get(id) ?? [])
      .filter(holds)
      .sort(order);
    expect(board.ranking('trending').map((e) => e.t.id)).toEqual(expected.map((e) => e.t.id));
    t.clock.advance(1_000);
    await board.refresh(() => t.clock.seconds());
    expect(board.sortPauses()).toBe(pauses);
  });
  it('recomputes at most RECOMPUTE_SLICE tokens per turn of the event loop while it rebuilds', async () => {
    const board24 = createWindowBoard(t.store, t.services.repos, '24h');
    const seen: number[] = [board24.recomputed()];
    let ticking = true;
    const tick = () => {
      seen.push(board24.recomputed());
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    await board24.refresh(() => t.clock.seconds());
    ticking = false;
    seen.push(board24.recomputed());
    const steps = seen.slice(1).map((n, i) => n - seen[i]!);
    expect(board24.recomputed()).toBeGreaterThan(1_900);
    expect(Math.max(...steps)).toBeLessThanOrEqual(RECOMPUTE_SLICE);
    expect(steps.filter((d) => d > 0).length).toBeGreaterThanOrEqual(Math.floor(board24.recomputed() / RECOMPUTE_SLICE));
  });

  it('sorts a ranking again in slices when an update changes more tokens than it re-places one by one', async () => {
    const board = createWindowBoard(t.store, t.services.repos, '24h', { sort: { run: 64, budget: 256 } });
    await board.refresh(() => t.clock.seconds());
    const before = board.sortPauses();
    const ids = t.store.db.prepare('SELECT address FROM tokens WHERE id > 5000 ORDER BY id LIMIT 400').pluck().all() as string[];
    t.ingest(ids.map((a, i) => aTrade(a, { blockTime: t.clock.seconds() - 10, volumeUsd: 50 + i })));
    await board.refresh(() => t.clock.seconds());
    expect(board.sortPauses()).toBeGreaterThan(before);
    const { order, holds } = RANKINGS.trending;
    const all = t.store.db.prepare('SELECT id FROM tokens').pluck().all() as number[];
    const expected = all
      .flatMap((id) => board.get(id) ?? [])
      .filter(holds)
      .sort(order);
    expect(board.ranking('trending').map((e) => e.t.id)).toEqual(expected.map((e) => e.t.id));
    expect(expected.length).toBeGreaterThan(2_300);
  });
});

describe('migration 009', () => {
  it('fills the search index of existing tokens like the ingest hook, letters beyond ASCII included', () => {
    const db = new Database(':memory:');
    migrate(
      db,
      loadMigrations().filter((m) => m.version < 9),
    );
    const insert = db.prepare('INSERT INTO tokens (address, symbol, name, decimals, created_at, updated_at) VALUES (?, ?, ?, 6, 0, 0)');
    const names = [
      ['ÄBC', 'Ärger Coin'],
      ['abc', 'Plain'],
      ['ΣΙΓΜΑ', 'Σίγμα token'],
      ['X', ''],
    ];
    names.forEach(([symbol, name], i) => insert.run(`addr${i}`, symbol, name));
    migrate(db);
    searchIndexHook(db); // refolds once what lower() could not
    const dump = () => ({
      rows: db.prepare('SELECT token_id, address, sym, name FROM token_search ORDER BY token_id').raw().all(),
      grams: db.prepare('SELECT gram, token_id FROM token_search_grams ORDER BY gram, token_id').raw().all(),
      names: db.prepare('SELECT rowid FROM token_search_names WHERE token_search_names MATCH \'"ärg"\'').pluck().all(),
    });
    const migrated = dump();
    rebuildSearchIndex(db);
    expect(migrated).toEqual(dump());
    expect(migrated.rows).toContainEqual([1, 'addr0', 'äbc', 'ärger coin']);
    expect(migrated.names).toEqual([1]);
    db.close();
  });
});
