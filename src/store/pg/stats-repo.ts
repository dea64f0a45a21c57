/**
 * What the store says about itself on PostgreSQL, for /metrics and /healthz: the twin of
 * src/store/sqlite/stats-repo.ts (each answer a promise). Counts answer as on SQLite; the size is the
 * database's (pg_database_size, what the server keeps on disk for it, WAL aside). PostgreSQL has
 * no page limit a write can hit, so `atPageLimit()` is false: a full disk shows as failing
 * writes, which the operator's disk alerts see (docs/operations.md, Many instances).
 */
import type { Async } from '../port/async.js';
import type { StatsRepo } from '../port/repos.js';
import { row, type Queryable } from './pg-repo.js';

/** PostgreSQL's "undefined_table" error code. */
const UNDEFINED_TABLE = '42P01';

export type PgStatsRepo = Async<StatsRepo>;

export function createPgStatsRepo(db: Queryable): PgStatsRepo {
  const one = async (sql: string): Promise<number> => (await row<{ n: number }>(db, sql))!.n;
  return {
    sizeBytes: () => one('SELECT pg_database_size(current_database()) AS n'),
    tokens: () => one('SELECT count(*) AS n FROM tokens'),
    // Kept by triggers (migration 010), as on SQLite: one row, not a count of the table.
    trades: () => one('SELECT n FROM trade_count WHERE one = 1'),
    answers: async () => (await one('SELECT 1 AS n')) === 1,
    atPageLimit: async () => false,
    async pendingDeliveries() {
      try {
        return await one("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'");
      } catch (err) {
        if ((err as { code?: string }).code === UNDEFINED_TABLE) return null;
        throw err;
      }
    },
  };
}
