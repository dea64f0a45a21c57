/**
 * SQLite's plans of the top-traders board's two pages (src/store/sqlite/trader-board-repo.ts): each is an
 * index range. PostgreSQL's twin answers its own plans (test/engines/pg-trader-board-repo.test.ts);
 * the board itself runs on both stores in test/v1/trader-board.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { createTraderBoardRepo } from '../../src/store/sqlite/trader-board-repo.js';

let t: TestApp;
afterEach(() => t?.close());

describe('top traders board on SQLite', () => {
  it('pages trades by index ranges: (token, time) for the window, the id range for new writes', () => {
    t = makeTestApp({ store: openStore(':memory:') });
    const [byTime, byId] = createTraderBoardRepo(t.store.db).plans();
    expect(byTime).toMatch(/^SEARCH trades USING INDEX trades_token_time \(token_id=\? AND block_time>\? AND block_time<\?\)$/);
    expect(byId).toBe('SEARCH trades USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)');
  });
});
