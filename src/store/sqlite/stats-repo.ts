/**
 * What the store says about itself, for /metrics and /healthz: its size, its counts and whether
 * it has room. Cheap reads (pragmas and index ends), safe to run on every scrape.
 */
import type { Db } from './db.js';
import type { StatsRepo } from '../port/operations.js';

// The interface and row types are the port's (src/store/port/operations.ts), named here too.
export type { StatsRepo } from '../port/operations.js';

export function createStatsRepo(db: Db): StatsRepo {
  const pageCount = db.prepare<[], number>('PRAGMA page_count').pluck();
  const pageSize = db.prepare<[], number>('PRAGMA page_size').pluck();
  const tokenCount = db.prepare<[], number>('SELECT count(*) FROM tokens').pluck();
  // Kept by triggers (migration 015): one row, not a scan; max(id) is not the count once trades are deleted.
  const tradeCount = db.prepare<[], number>('SELECT n FROM trade_count WHERE one = 1').pluck();
  const ping = db.prepare<[], number>('SELECT 1').pluck();
  const pages = db
    .prepare<[], [number, number, number]>(
      'SELECT p.page_count, m.max_page_count, f.freelist_count FROM pragma_page_count() p, pragma_max_page_count() m, pragma_freelist_count() f',
    )
    .raw();
  let pending: { get(): number | undefined } | null = null;

  return {
    /** Bytes of the main database file (page_count * page_size; the WAL is separate). */
    sizeBytes: (): number => pageCount.get()! * pageSize.get()!,
    tokens: (): number => tokenCount.get()!,
    trades: (): number => tradeCount.get() ?? 0,
    /** Whether the store answers a query at all. */
    answers: (): boolean => ping.get() === 1,
    /** Every page up to max_page_count is used and none is free: the next write that grows the file fails. */
    atPageLimit: (): boolean => {
      const [count, max, free] = pages.get()!;
      return count >= max && free === 0;
    },
    /** Webhook deliveries waiting in the outbox; null in a store whose schema has no outbox. */
    pendingDeliveries: (): number | null => {
      try {
        pending ??= db.prepare<[], number>("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'").pluck();
        return pending.get() ?? 0;
      } catch {
        return null;
      }
    },
  };
}
