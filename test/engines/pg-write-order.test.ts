/**
 * Record numbers in commit order: without the write-order lock a reader sees a number whose
 * predecessor commits later (the hole a trade walk would skip for ever); with it, every snapshot
 * holds every number up to its highest, while several instances write at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createPgPool } from '../../src/store/pg/pool.js';
import { migratePg } from '../../src/store/pg/migrate.js';
import { inWriteOrder } from '../../src/store/pg/write-order.js';
import { freshDatabase, type FreshDatabase } from './support.js';

const INSERT = `INSERT INTO token_changes (token_id) VALUES ($1) RETURNING seq`;
/** What a reader sees in one snapshot: the highest number and how many rows. */
const SNAPSHOT = 'SELECT coalesce(max(seq), 0) AS top, count(*) AS n FROM token_changes';

/** A promise and the function that resolves it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

describe('write order', () => {
  let db: FreshDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await freshDatabase('order');
    pool = createPgPool({ url: db.url, instanceId: 'order-test', max: 12 });
    const c = await pool.connect();
    try {
      await migratePg(c);
    } finally {
      c.release();
    }
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const reset = () => pool.query('TRUNCATE token_changes RESTART IDENTITY');

  it('without the lock, a reader can see a number whose predecessor has not committed', async () => {
    await reset();
    const first = await pool.connect();
    try {
      await first.query('BEGIN');
      expect((await first.query(INSERT, [1])).rows[0].seq).toBe(1);
      // A second writer takes the next number and commits while the first is still open.
      expect((await pool.query(INSERT, [2])).rows[0].seq).toBe(2);
      expect((await pool.query(SNAPSHOT)).rows[0]).toEqual({ top: 2, n: 1 });
      await first.query('COMMIT');
    } finally {
      first.release();
    }
  });

  it('with the lock, a later writer waits, and takes its number after the first commits', async () => {
    await reset();
    const hold = gate();
    const took = gate();
    const a = inWriteOrder(pool, async (c) => {
      const seq = (await c.query(INSERT, [1])).rows[0].seq as number;
      took.open();
      await hold.wait;
      return seq;
    });
    await took.wait;
    let bDone = false;
    const b = inWriteOrder(pool, async (c) => (await c.query(INSERT, [2])).rows[0].seq as number).then((seq) => {
      bDone = true;
      return seq;
    });
    try {
      // b is queued on the lock, not on anything of ours: what a reader sees stays whole.
      for (let i = 0; i < 5; i++) {
        expect((await pool.query(SNAPSHOT)).rows[0]).toEqual({ top: 0, n: 0 });
        expect(bDone).toBe(false);
      }
    } finally {
      // Never leave the first transaction open (a failure above would hang every later test).
      hold.open();
    }
    expect(await a).toBe(1);
    expect(await b).toBe(2);
    expect((await pool.query(SNAPSHOT)).rows[0]).toEqual({ top: 2, n: 2 });
  });

  it('every snapshot holds every number up to its highest while many writers commit at once', async () => {
    await reset();
    let writing = true;
    const seen: { top: number; n: number }[] = [];
    const reader = (async () => {
      while (writing) seen.push((await pool.query(SNAPSHOT)).rows[0]);
    })();
    const writers = Array.from({ length: 8 }, (_, w) =>
      (async () => {
        for (let i = 0; i < 25; i++) {
          await inWriteOrder(pool, async (c) => {
            for (let k = 0; k <= (w + i) % 4; k++) await c.query(INSERT, [w]);
          });
        }
      })(),
    );
    await Promise.all(writers);
    writing = false;
    await reader;
    const total = Array.from({ length: 8 }, (_, w) => Array.from({ length: 25 }, (__, i) => ((w + i) % 4) + 1).reduce((x, y) => x + y, 0)).reduce(
      (x, y) => x + y,
      0,
    );
    expect((await pool.query(SNAPSHOT)).rows[0]).toEqual({ top: total, n: total });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s.top !== s.n)).toEqual([]);
  });
});
