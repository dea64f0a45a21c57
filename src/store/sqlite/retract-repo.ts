/**
 * The retraction on SQLite (docs/indexer.md, Reorgs: what a retraction removes): runs the
 * statements of retract-steps.ts synchronously on the one connection, inside the caller's write
 * transaction (src/services/ingest.ts), and the reads of the removal log the stream follows.
 */
import type { Db } from './db.js';
import type { Removal, RemovalLogEntry, Retraction } from '../port/retract.js';
import type { SqliteIngestHook } from '../port/ingest.js';
import { discoveryHook } from './token-changes-repo.js';
import { retractStatements, retractSteps, tokenTablesOf, type Step, type StepResult } from '../retract-steps.js';

/** The SQLite half of a retraction: call `remove` and then `settle` inside one write transaction. */
export type SqliteRetractor = {
  /** Removes the trades, markets and tokens of `r` and recomputes what held them. */
  remove(r: Pick<Retraction, 'trades' | 'markets' | 'tokens'>, now: number): Removal;
  /** Logs the touched tokens in the token change log and refreshes their search rows (after records are written back). */
  settle(touched: ReadonlySet<number>, now: number): void;
};

export function createSqliteRetractor(db: Db): SqliteRetractor {
  const statements = new Map<string, ReturnType<Db['prepare']>>();
  const prepared = (sql: string) => {
    let st = statements.get(sql);
    if (st === undefined) statements.set(sql, (st = db.prepare(sql)));
    return st;
  };
  const run = (step: Step): StepResult =>
    step.rows === true ? (prepared(step.sql).all(step.params) as Record<string, unknown>[]) : prepared(step.sql).run(step.params).changes;

  // The schema is migrated before any ingest is made: its tables, and every statement, are read
  // and prepared here, so the first retraction holds the connection no longer than the next.
  const tokenTables = tokenTablesOf(
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]).map((name) => ({
      name,
      columns: db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(name) as string[],
    })),
  );
  // The trigram table of search names is keyed by rowid (the token's id), not by a token_id column.
  const extra = ['DELETE FROM token_search_names WHERE rowid = @token'];
  for (const sql of retractStatements(tokenTables, extra)) prepared(sql);
  const discovery: SqliteIngestHook = discoveryHook(db);

  return {
    remove(r, now) {
      const steps = retractSteps(r, now, tokenTables, extra);
      let next = steps.next();
      while (next.done !== true) next = steps.next(run(next.value));
      return next.value;
    },
    settle(touched, now) {
      discovery({ trades: [], touchedTokens: touched, now, first: true });
    },
  };
}

type LogRow = { seq: number; tradeId: number; tokenId: number; signature: string; index: number };

/** The removal log's reads (migration 017). */
export function createRemovalLogRepo(db: Db) {
  const last = db.prepare<[], number | null>('SELECT max(seq) FROM removal_log').pluck();
  const after = db.prepare<[number, number], LogRow>(
    'SELECT seq, trade_id AS tradeId, token_id AS tokenId, signature, idx AS "index" FROM removal_log WHERE seq > ? ORDER BY seq LIMIT ?',
  );
  return {
    lastRemovalSeq: (): number => last.get() ?? 0,
    removalsAfter: (seq: number, limit: number): RemovalLogEntry[] => after.all(seq, limit),
  };
}

export type RemovalLogRepo = ReturnType<typeof createRemovalLogRepo>;
