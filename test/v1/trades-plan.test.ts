/**
 * The SQLite query plans of the /v1 trades pages: every filter seeks a (token, time, id) index
 * backwards. PostgreSQL has the same indexes (test/engines/pg-schema.test.ts); no test reads its
 * plans for these pages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { createTradesRepo } from '../../src/store/sqlite/trades-repo.js';

let t: TestApp;
afterEach(() => t?.close());

describe('GET /v1/token/:address/trades on SQLite', () => {
  it('seeks the (token, time, id) indexes backwards for every filter, so deep pages cost what the first does', () => {
    t = makeTestApp();
    const sqls: string[] = [];
    const db = t.store.db;
    const prepare = db.prepare.bind(db);
    (db as { prepare: unknown }).prepare = (sql: string) => {
      sqls.push(sql);
      return prepare(sql);
    };
    createTradesRepo(db);
    (db as { prepare: unknown }).prepare = prepare;
    const pages = sqls.filter((s) => s.includes('ORDER BY t.block_time DESC, t.id DESC'));
    expect(pages).toHaveLength(4);
    for (const sql of pages) {
      const plan = (
        db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ tokenId: 1, blockTime: 5, id: 5, after: 0, bound: 9, limit: 10, isBuy: 1, wallet: 'w' }) as {
          detail: string;
        }[]
      )
        .map((r) => r.detail)
        .join(' | ');
      expect(plan).toMatch(
        /SEARCH t USING INDEX trades_token_(time|side_time|wallet_time) \(token_id=\? AND (is_buy=\? AND |wallet=\? AND )?block_time>\? AND block_time<\?\)/,
      );
      expect(plan).not.toMatch(/TEMP B-TREE|SCAN t/);
    }
  });
});
