/**
 * The top-traders board (src/read/trader-board.ts) against a naive ranking of the raw trades,
 * and its costs pinned by structure: trades read per update, page sizes, boards and bytes kept.
 * SQLite's query plans of its pages: test/v1/trader-board-sqlite.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, anAddress, withMarket } from '../helpers/builders.js';
import { inWindow, naiveTraders, readRawTrades, readTokenId } from './naive.js';
import { MAX_BOARDS, MAX_MOVED, PAGE, createTraderBoard, createTraderBoards } from '../../src/read/trader-board.js';

let t: TestApp;
afterEach(() => t?.close());

const WINDOWS = { '1h': 3600, '6h': 21600, '24h': 86400, '7d': 604800, '30d': 2592000 } as const;
type Sort = 'volume' | 'trades' | 'net';

describe('top traders board', () => {
  it('equals a naive ranking while the clock moves, trades arrive (backfill and ahead of the clock) and leave the window', async () => {
    // One store for every run (a fresh PostgreSQL database per run would cost more than the run):
    // each run has a token and wallets of its own. The anonymous limit is raised for the requests.
    t = makeTestApp({ env: { RATE_LIMIT_ANON: '100000000/60' } });
    const app = t;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            trades: fc.array(
              fc.record({
                dt: fc.oneof(
                  fc.integer({ min: -31 * 86400, max: 400 }),
                  fc.integer({ min: -3700, max: 30 }),
                  fc.constantFrom(-3599, -3600, -21599, -86399, -86400, 0, 1, 2),
                ),
                vol: fc.integer({ min: 0, max: 4000 }).map((v) => v / 4),
                buy: fc.boolean(),
                w: fc.integer({ min: 0, max: 59 }),
              }),
              { maxLength: 60 },
            ),
            advance: fc.constantFrom(0, 1, 2, 59, 300, 301, 3600, -3, 90_000),
            sort: fc.constantFrom<Sort>('volume', 'trades', 'net'),
            limit: fc.constantFrom(1, 7, 1000),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        async (rounds) => {
          const tok = aToken();
          const wallets = Array.from({ length: 60 }, () => anAddress('w'));
          await app.ingest(withMarket(tok));
          for (const round of rounds) {
            const now = app.clock.seconds();
            if (round.trades.length > 0) {
              await app.ingest(
                round.trades.map((r) => aTrade(tok.address, { blockTime: now + r.dt, volumeUsd: r.vol, side: r.buy ? 'buy' : 'sell', wallet: wallets[r.w]! })),
              );
            }
            app.clock.advance(round.advance * 1000);
            const at = app.clock.seconds();
            const all = await readRawTrades(app.store, await readTokenId(app.store, tok.address));
            for (const [window, w] of Object.entries(WINDOWS)) {
              const res = await app.http.get(`/v1/token/${tok.address}/top-traders?window=${window}&sort=${round.sort}&limit=${round.limit}`);
              expect(res.status).toBe(200);
              expect(res.body).toEqual({ window, traders: naiveTraders(inWindow(all, at, w), round.sort).slice(0, round.limit) });
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 60_000);

  it('reads only the trades that moved when brought forward, however many wallets the window holds', async () => {
    const moved: number[] = [];
    for (const wallets of [300, 3000]) {
      const app = makeTestApp();
      try {
        const now = app.clock.seconds();
        const tok = aToken();
        await app.ingest(withMarket(tok));
        // two trades per wallet inside the hour, three trades that leave it one second from now
        const names = Array.from({ length: wallets }, () => anAddress('w'));
        await app.ingest(Array.from({ length: wallets * 2 }, (_, i) => aTrade(tok.address, { blockTime: now - 100 - (i % 3000), wallet: names[i >> 1]! })));
        await app.ingest(Array.from({ length: 3 }, () => aTrade(tok.address, { blockTime: now - 3599 })));
        const board = createTraderBoard(app.store, app.services.repos.traderBoard, await readTokenId(app.store, tok.address), 3600);
        await board.refresh(() => app.clock.seconds());
        expect(board.size()).toBe(wallets + 3);
        const built = board.stats();
        expect(built).toEqual({ rowsRead: wallets * 2 + 3, builds: 1, updates: 0, pages: Math.floor((wallets * 2 + 3) / PAGE) + 1 });
        // five new trades (one of another token, which the board never returns), and the clock moves one second
        const other = aToken();
        await app.ingest([...withMarket(other), aTrade(other.address, { blockTime: now })]);
        await app.ingest(Array.from({ length: 5 }, () => aTrade(tok.address, { blockTime: now + 1, volumeUsd: 1e6 })));
        app.clock.advance(1000);
        await board.refresh(() => app.clock.seconds());
        const after = board.stats();
        expect(after.builds).toBe(1);
        expect(after.updates).toBe(1);
        moved.push(after.rowsRead - built.rowsRead);
        expect(board.size()).toBe(wallets + 5);
        expect(board.top('volume', 5).map((x) => x.b)).toEqual([1e6, 1e6, 1e6, 1e6, 1e6]);
        // a second request in the same second reads nothing
        await board.refresh(() => app.clock.seconds());
        expect(board.stats().rowsRead).toBe(after.rowsRead);
      } finally {
        await app.close();
      }
    }
    expect(moved).toEqual([8, 8]);
  });

  it('keeps one board per token and window, drops the least recently read beyond MAX_BOARDS, and replaces a board whose token id names another address', () => {
    t = makeTestApp();
    const boards = createTraderBoards(t.store, t.services.repos.traderBoard);
    const first = boards.get(1, 'A', 3600);
    expect(boards.get(1, 'A', 3600)).toBe(first);
    expect(boards.get(1, 'A', 86400)).not.toBe(first);
    expect(boards.get(1, 'B', 3600)).not.toBe(first);
    const kept = boards.get(1, 'B', 3600);
    for (let id = 2; id < 2 + MAX_BOARDS - 1; id++) boards.get(id, 'A', 3600);
    expect(boards.get(1, 'B', 3600)).toBe(kept); // still among the MAX_BOARDS most recent
    for (let id = 100; id < 100 + MAX_BOARDS; id++) boards.get(id, 'A', 3600);
    expect(boards.get(1, 'B', 3600)).not.toBe(kept);
  });

  /** A store with `tokens` tokens, each with one trade of each of `wallets` wallets a minute ago. */
  async function manyWallets(app: TestApp, tokens: number, wallets: number): Promise<{ id: number; address: string }[]> {
    const now = app.clock.seconds();
    const names = Array.from({ length: wallets }, () => anAddress('w'));
    const made: { id: number; address: string }[] = [];
    for (let k = 0; k < tokens; k++) {
      const tok = aToken();
      await app.ingest([...withMarket(tok), ...names.map((wallet, i) => aTrade(tok.address, { blockTime: now - 60, wallet, volumeUsd: 1 + (i % 7) }))]);
      made.push({ id: await readTokenId(app.store, tok.address), address: tok.address });
    }
    return made;
  }

  it('holds a wallet in at most 130 bytes a board, its name once per token however many windows are read', async () => {
    t = makeTestApp();
    const [tok] = await manyWallets(t, 1, 3000);
    const boards = createTraderBoards(t.store, t.services.repos.traderBoard);
    const hour = boards.get(tok!.id, tok!.address, 3600);
    await hour.refresh(() => t.clock.seconds());
    const day = boards.get(tok!.id, tok!.address, 86400);
    await day.refresh(() => t.clock.seconds());
    expect([hour.size(), day.size()]).toEqual([3000, 3000]);
    for (const board of [hour, day]) expect(board.bytes() / 3000).toBeLessThanOrEqual(130);
    // the rest is the token's names, counted once: a 44-character name and its index entry
    const names = boards.stats().bytes - hour.bytes() - day.bytes();
    expect(names / 3000).toBeGreaterThan(44);
    expect(names / 3000).toBeLessThanOrEqual(44 + 90);
  });

  it('drops the least recently read boards beyond its byte budget, and never the board just read', async () => {
    t = makeTestApp();
    const [a, b] = await manyWallets(t, 2, 1000);
    const probe = createTraderBoards(t.store, t.services.repos.traderBoard);
    const one = probe.get(a!.id, a!.address, 3600);
    await one.refresh(() => t.clock.seconds());
    const budgetBytes = Math.ceil(probe.stats().bytes * 1.5);

    const boards = createTraderBoards(t.store, t.services.repos.traderBoard, { budgetBytes });
    const first = boards.get(a!.id, a!.address, 3600);
    await first.refresh(() => t.clock.seconds());
    expect(boards.stats()).toMatchObject({ boards: 1, evicted: 0 });
    const second = boards.get(b!.id, b!.address, 3600);
    await second.refresh(() => t.clock.seconds());
    // two boards do not fit: the first, read least recently, was dropped once the second was built
    expect(boards.stats()).toMatchObject({ boards: 1, evicted: 1 });
    expect(boards.stats().bytes).toBeLessThanOrEqual(budgetBytes);
    expect(boards.get(b!.id, b!.address, 3600)).toBe(second);
    const again = boards.get(a!.id, a!.address, 3600);
    expect(again).not.toBe(first);
    await again.refresh(() => t.clock.seconds());
    expect(again.top('volume', 1)).toEqual(first.top('volume', 1));
    expect(boards.stats()).toMatchObject({ boards: 1, evicted: 2 });

    // a budget smaller than any board still keeps the board being read
    const tiny = createTraderBoards(t.store, t.services.repos.traderBoard, { budgetBytes: 1 });
    const kept = tiny.get(a!.id, a!.address, 3600);
    await kept.refresh(() => t.clock.seconds());
    expect(tiny.stats()).toMatchObject({ boards: 1, evicted: 0 });
    expect(kept.size()).toBe(1000);
  });

  it('builds in pages of at most PAGE trades and applies at most MAX_MOVED moved trades in one step (more rebuilds)', async () => {
    t = makeTestApp();
    const tok = aToken();
    const now = t.clock.seconds();
    await t.ingest([...withMarket(tok), ...Array.from({ length: 2 * PAGE + 10 }, (_, i) => aTrade(tok.address, { blockTime: now - 10 - (i % 50) }))]);
    const board = createTraderBoard(t.store, t.services.repos.traderBoard, await readTokenId(t.store, tok.address), 3600);
    await board.refresh(() => t.clock.seconds());
    expect(board.stats()).toEqual({ rowsRead: 2 * PAGE + 10, builds: 1, updates: 0, pages: 3 });
    await t.ingest(Array.from({ length: MAX_MOVED + 1 }, () => aTrade(tok.address, { blockTime: now })));
    await board.refresh(() => t.clock.seconds());
    expect(board.stats()).toMatchObject({ builds: 2, updates: 0 });
    expect(board.size()).toBe(2 * PAGE + 10 + MAX_MOVED + 1);
  });
});
