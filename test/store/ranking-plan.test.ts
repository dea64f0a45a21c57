/**
 * The SQLite plan of the ranking reads (src/store/sqlite/ranking-repo.ts): every rollup bucket is one
 * primary-key seek, never a scan of other tokens' rows. SQLite's planner only; ranking-repo.test.ts
 * holds the reads that run on both stores.
 */
import { describe, expect, it } from 'vitest';
import { COVER_SQL } from '../../src/store/sqlite/ranking-repo.js';
import { openStore } from '../../src/store/sqlite/db.js';

describe('ranking reads on SQLite', () => {
  it('read each rollup bucket by one seek on (res, t, token_id), never a scan of other tokens', () => {
    const store = openStore(':memory:');
    try {
      for (const [table, sql] of [['market_rollups', COVER_SQL.markets]] as const) {
        const params = { tokenId: 1, l0: '[]', l1: '[]', l2: '[]', l3: '[]', r0f: 0, r0t: 0, r1f: 0, r1t: 0 };
        const named = Object.fromEntries(Object.entries(params).filter(([k]) => sql.includes(`@${k}`)));
        const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(named) as { detail: string }[]).map((r) => r.detail);
        const rollupSteps = plan.filter((d) => d.includes(table));
        expect(rollupSteps.length).toBeGreaterThan(0);
        for (const d of rollupSteps) expect(d).toBe(`SEARCH ${table} USING PRIMARY KEY (res=? AND t=? AND token_id=?)`);
        for (const d of plan.filter((x) => x.includes(' trades ')))
          expect(d).toMatch(/^SEARCH trades USING (COVERING )?INDEX trades_token_\w+ \(token_id=\? AND block_time>\? AND block_time<\?\)$/);
      }
    } finally {
      store.close();
    }
  });
});
