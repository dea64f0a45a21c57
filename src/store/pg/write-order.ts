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
import { pgTransaction } from './pg-repo.js';

/** The advisory lock key of numbered writes (the migration lock is ...0001). */
export const WRITE_ORDER_LOCK_KEY = '7301746852145370002';

/**
 * Runs `fn` in one transaction on a connection of `pool`, holding the write-order lock for the
 * whole transaction: committed when `fn` resolves, rolled back when it throws.
 */
export function inWriteOrder<T>(pool: pg.Pool, fn: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  return pgTransaction(pool, WRITE_ORDER_LOCK_KEY, fn);
}
