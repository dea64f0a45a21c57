/**
 * The retraction on PostgreSQL: the twin of src/store/sqlite/retract-repo.ts. It runs the same
 * statements (src/store/retract-steps.ts, @named parameters numbered here) one by one on the
 * client of the ingest's inWriteOrder() transaction, so the removal log is numbered in commit
 * order like every numbered write, and it reads the removal log for the stream.
 */
import type pg from 'pg';
import type { EngineRetractor, RemovalLogEntry, RemovalLogReads } from '../port/retract.js';
import { retractSteps, tokenTablesOf, type Step, type StepResult } from '../retract-steps.js';
import { pgDiscoveryHook } from './discovery-hook.js';
import { named, row, rows, type Queryable } from './pg-repo.js';

/** A statement with @names, as PostgreSQL's $1..$n, and the names in their order. */
const numbered = new Map<string, { text: string; names: string[] }>();
function toPg(sql: string): { text: string; names: string[] } {
  let hit = numbered.get(sql);
  if (hit === undefined) {
    const names: string[] = [];
    const text = sql.replace(/@(\w+)/g, (_, name: string) => {
      let i = names.indexOf(name);
      if (i < 0) i = names.push(name) - 1;
      return `$${i + 1}`;
    });
    numbered.set(sql, (hit = { text, names }));
  }
  return hit;
}

async function run(client: pg.ClientBase, step: Step): Promise<StepResult> {
  const { text, names } = toPg(step.sql);
  // Named: each statement is parsed and planned once per connection, not at every bucket.
  const result = await client.query(
    named(
      text,
      names.map((n) => step.params[n]),
    ),
  );
  return step.rows === true ? (result.rows as Record<string, unknown>[]) : (result.rowCount ?? 0);
}

/** Tables keyed by token_id, read once per process (the schema is fixed once migrated). */
let tables: Promise<string[]> | null = null;
async function tokenTables(client: pg.ClientBase): Promise<string[]> {
  tables ??= rows<{ name: string; columns: string[] }>(
    client,
    `SELECT table_name AS name, array_agg(column_name::text) AS columns FROM information_schema.columns
     WHERE table_schema = current_schema() GROUP BY table_name`,
  ).then(
    (list) => tokenTablesOf(list),
    (err: unknown) => {
      tables = null;
      throw err;
    },
  );
  return tables;
}

/** The retraction's half on the transaction's client. */
export function pgRetractor(client: pg.ClientBase): EngineRetractor {
  const discovery = pgDiscoveryHook();
  return {
    async remove(r, now) {
      const steps = retractSteps(r, now, await tokenTables(client), [], true);
      let next = steps.next();
      while (next.done !== true) next = steps.next(await run(client, next.value));
      return next.value;
    },
    async settle(touched, now) {
      await discovery({ trades: [], touchedTokens: touched, now, first: true }, { engine: 'postgres', client });
    },
    async addresses(ids) {
      if (ids.size === 0) return [];
      return (await rows<{ address: string }>(client, 'SELECT address FROM tokens WHERE id = ANY($1::bigint[])', [[...ids]])).map((r) => r.address);
    },
  };
}

/** The removal log's reads (migration 012), on the pool or a client. */
export function createPgRemovalLogRepo(db: Queryable): RemovalLogReads {
  return {
    lastRemovalSeq: async () => (await row<{ n: number | null }>(db, 'SELECT max(seq) AS n FROM removal_log'))!.n ?? 0,
    removalsAfter: async (after, limit) =>
      rows<RemovalLogEntry>(
        db,
        'SELECT seq, trade_id AS "tradeId", token_id AS "tokenId", signature, idx AS "index" FROM removal_log WHERE seq > $1 ORDER BY seq LIMIT $2',
        [after, limit],
      ),
  };
}
