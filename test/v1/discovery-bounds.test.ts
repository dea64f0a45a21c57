/**
 * The cost bounds of search and discovery, pinned structurally on a store of 20,000 tokens (README,
 * Search and Discovery): a search reads a number of index rows that depends on its matches and
 * not on the store, and moving the clock recomputes only the tokens whose window changed. SQLite's
 * query plans of these statements: test/v1/discovery-bounds-sqlite.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aTrade } from '../helpers/builders.js';
import { rawSql } from '../helpers/raw-sql.js';
import { createWindowBoard, RECOMPUTE_SLICE } from '../../src/read/window-board.js';
import { PAGES_PER_TURN, searchTokens, SEARCH_PAGE } from '../../src/read/search-views.js';
import { asyncRepo } from '../../src/store/port/async.js';
import type { Store } from '../../src/store/sqlite/db.js';
import type { PgStore } from '../../src/store/pg/pg-store.js';
import { createSearchIndexRepo } from '../../src/store/sqlite/search-index-repo.js';
import { createPgSearchIndexRepo } from '../../src/store/pg/search-index-repo.js';
import { normalizeAddress } from '../../src/domain/address.js';
import { SORT_SLICE } from '../../src/domain/sliced-sort.js';
import { RANKINGS } from '../../src/domain/discovery.js';
import { ACTIVE, TOKENS, fillDiscoveryStore, word } from './discovery-fixture.js';

let t: TestApp;
/** The tokens' addresses, token i at i (ingested in that order). */
let addresses: string[];

beforeAll(async () => {
  t = makeTestApp();
  addresses = await fillDiscoveryStore(t);
}, 300_000);
afterAll(() => t?.close());

/** A search index repo of its own, so its count of rows read starts at 0. */
function freshIndex() {
  const store = t.store as Store | PgStore;
  return store.kind === 'sqlite' ? asyncRepo(createSearchIndexRepo(store.db)) : createPgSearchIndexRepo(store.pool);
}

/** Every token's id. */
const allIds = async (): Promise<number[]> => (await rawSql<{ id: number }>(t.store, 'SELECT id FROM tokens')).map((r) => r.id);

describe('search and discovery on 20,000 tokens', () => {
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
    const index = freshIndex();
    const hits = await searchTokens(index, board, q, normalizeAddress(q), 100);
    // Per match kind: a symbol range, and for prefix and name the walk and the enumeration in
    // turns, each stopping within a page of the cheaper one. Here none needs more than a few pages.
    const read = await index.rowsRead();
    expect(read).toBeLessThanOrEqual(12 * SEARCH_PAGE);
    expect(read).toBeLessThan(TOKENS / 6);
    expect(hits.length).toBeLessThanOrEqual(100);
  });

  it('stops the walk and the enumeration within a page of the cheaper one (symbol prefix)', async () => {
    const board = createWindowBoard(t.store, t.services.repos, '24h');
    await board.refresh(() => t.clock.seconds());
    const index = freshIndex();
    const hits = await searchTokens(index, board, 'e', null, 100);
    expect(hits).toHaveLength(100);
    expect(hits.every((h) => h.matchedBy === 'symbolPrefix')).toBe(true);
    // The enumeration must read every prefix match; the walk, every token up to the 100th
    // match without volume in address order. They read pages in turn.
    const syms = (await rawSql<{ sym: string; id: number }>(t.store, 'SELECT sym, token_id AS id FROM token_search ORDER BY address')).map(
      (r): [string, number] => [r.sym, r.id],
    );
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
    expect(await index.rowsRead()).toBeLessThanOrEqual(2 * (cheaper + SEARCH_PAGE) + 3 * SEARCH_PAGE);
  });

  it('pauses after every PAGES_PER_TURN index pages of a walk, the first reads aside', async () => {
    const board = createWindowBoard(t.store, t.services.repos, '24h');
    await board.refresh(() => t.clock.seconds());
    const index = freshIndex();
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
    const changed = (await t.services.repos.discovery.tradedBetween(from - 86_400 + 1, t.clock.seconds() - 86_400 + 1)).length;
    expect(changed).toBe(11);
    expect(board.recomputed() - before).toBe(changed);
    expect(board.ranking('trending')).toHaveLength(ACTIVE - 20);
    const tok = addresses[2999]!; // traded two days ago only
    await t.ingest([aTrade(tok, { blockTime: t.clock.seconds() - 5, volumeUsd: 1e9 })]);
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
    const all = await allIds();
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
    // (A reduce: on PostgreSQL the loop turns many times while a read is out, too many to spread.)
    expect(steps.reduce((m, d) => Math.max(m, d), 0)).toBeLessThanOrEqual(RECOMPUTE_SLICE);
    expect(steps.filter((d) => d > 0).length).toBeGreaterThanOrEqual(Math.floor(board24.recomputed() / RECOMPUTE_SLICE));
  });

  it('sorts a ranking again in slices when an update changes more tokens than it re-places one by one', async () => {
    const board = createWindowBoard(t.store, t.services.repos, '24h', { sort: { run: 64, budget: 256 } });
    await board.refresh(() => t.clock.seconds());
    const before = board.sortPauses();
    const ids = addresses.slice(5000, 5400); // never traded
    await t.ingest(ids.map((a, i) => aTrade(a, { blockTime: t.clock.seconds() - 10, volumeUsd: 50 + i })));
    await board.refresh(() => t.clock.seconds());
    expect(board.sortPauses()).toBeGreaterThan(before);
    const { order, holds } = RANKINGS.trending;
    const all = await allIds();
    const expected = all
      .flatMap((id) => board.get(id) ?? [])
      .filter(holds)
      .sort(order);
    expect(board.ranking('trending').map((e) => e.t.id)).toEqual(expected.map((e) => e.t.id));
    expect(expected.length).toBeGreaterThan(2_300);
  });
});
