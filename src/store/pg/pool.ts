/**
 * The PostgreSQL connection pool of an instance (docs/operations.md, Many instances), set up so
 * the PostgreSQL repos hand the services the same values as the SQLite ones:
 * - bigint (record numbers, times in seconds and milliseconds, counts) and numeric (what sum()
 *   of a bigint gives) come back as JavaScript numbers, not strings; a value beyond 2^53, which no
 *   record number or time of this service reaches, throws instead of losing digits;
 * - every connection carries the instance's name (application_name, seen in pg_stat_activity);
 * - a connection attempt or a statement gives up within a bound, so a request that needs an
 *   unreachable database can answer 503 within 5 s (isUnavailable() says which errors mean that).
 * The parsers are the pool's own: the pg module's global parsers are left alone.
 */
import pg from 'pg';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** A whole number from PostgreSQL text, refused when a double cannot hold it exactly. */
export function parseSafeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${text} is beyond what a JavaScript number holds exactly`);
  return n;
}

/** A numeric as a double (sums and averages; exactness beyond 15 digits is not promised for them). */
const parseNumeric = (text: string): number => Number(text);

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (format !== 'binary' && oid === INT8_OID) return parseSafeInteger;
    if (format !== 'binary' && oid === NUMERIC_OID) return parseNumeric;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export type PgPoolOptions = {
  url: string;
  /** The instance's name (INSTANCE_ID), shown as the connections' application_name. */
  instanceId: string;
  /** Connections at most (default 10). */
  max?: number;
  /** Bound on getting a connection, in ms (default 3000). */
  connectTimeoutMs?: number;
  /** Bound on one statement, in ms (default 30000: the largest ingest slices and migrations). */
  statementTimeoutMs?: number;
};

export function createPgPool(opts: PgPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    application_name: opts.instanceId.slice(0, 63),
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 3000,
    statement_timeout: opts.statementTimeoutMs ?? 30_000,
    types,
  });
  // An idle connection the server dropped (a restart) must not crash the process: the pool
  // discards it and the next checkout connects again.
  pool.on('error', () => undefined);
  return pool;
}

// Kept free of the pg module so the error path can ask it without loading pg (SQLite mode).
export { isUnavailable } from './unavailable.js';
