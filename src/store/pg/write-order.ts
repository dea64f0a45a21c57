/**
 * Record numbers in commit order on PostgreSQL (docs/operations.md, Many instances). A sequence
 * hands out numbers when rows are inserted, not when they commit: a transaction that took 41 and
 * commits after another that took 42 would let a reader see 42 without 41, and a trade walk,
 * `sinceId` replay or the events feed that moved past 42 would never see 41. Every transaction
 * that numbers trades, events or token changes therefore runs in inWriteOrder(): it holds one
 * transaction-level advisory lock from before its first insert until its commit, so numbers are
 * taken and made visible in the same order, on every instance (PostgreSQL makes a commit
 * visible before it releases the transaction's locks, so the next holder's numbers come after).
 * Writes that number nothing (sessions, keys, subscriptions) do not need it.
 */
import type pg from 'pg';

/** The advisory lock key of numbered writes (the migration lock is ...0001). */
export const WRITE_ORDER_LOCK_KEY = '7301746852145370002';

/**
 * Runs `fn` in one transaction on a connection of `pool`, holding the write-order lock for the
 * whole transaction: committed when `fn` resolves, rolled back when it throws.
 */
export async function inWriteOrder<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [WRITE_ORDER_LOCK_KEY]);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    }
  } finally {
    // A connection whose rollback failed is in an unknown state: the pool must not hand it out.
    client.release(broken);
  }
}
