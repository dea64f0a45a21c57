/**
 * Writes that wait for the ingest transaction's next statement (docs/architecture.md, The
 * PostgreSQL ingest). Most of a slice's writes answer nothing the slice needs (the rollups, the
 * read views, the trade commits), yet each cost a round trip that a small live post spent waiting
 * behind the server's other work. On the ingest's client they are queued instead and go out with
 * the next statement: as CTEs of it when that statement is one that says it reads nothing they
 * write (`carrying`), else as one statement of their own just before it; and always before the
 * commit. Every write still happens inside the transaction and before anything that could read it.
 */
import type pg from 'pg';
import { combinedQuery, type Part } from './combined.js';
import { named, type Queryable } from './pg-repo.js';

type Deferring = { raw: pg.ClientBase; pending: Part[] };

const deferring = new WeakMap<object, Deferring>();

/**
 * The ingest transaction's client: `raw`, whose query() first sends the writes queued by defer().
 * Only promise-style calls are taken while writes wait (every ingest call is); anything else is
 * refused rather than run ahead of them.
 */
export function deferringClient(raw: pg.ClientBase): pg.ClientBase {
  const state: Deferring = { raw, pending: [] };
  const client = Object.create(raw) as pg.ClientBase;
  const query = (...args: unknown[]): unknown => {
    const call = () => (raw.query as (...a: unknown[]) => unknown).apply(raw, args);
    if (state.pending.length === 0) return call();
    const [first, , last] = args;
    if (typeof first === 'object' && first !== null && 'submit' in first) throw new Error('a submittable query while ingest writes wait');
    if (typeof args[1] === 'function' || typeof last === 'function') throw new Error('a callback query while ingest writes wait');
    return flush(client).then(call);
  };
  Object.defineProperty(client, 'query', { value: query });
  deferring.set(client, state);
  return client;
}

/** Queues `parts` on a deferring client; on any other client, sends them now, as one statement. */
export async function defer(client: Queryable, parts: readonly Part[]): Promise<void> {
  if (parts.length === 0) return;
  const state = deferring.get(client);
  if (state === undefined) await client.query(combinedQuery(parts));
  else state.pending.push(...parts);
}

/** Sends the queued writes, if any, as one statement. */
export async function flush(client: pg.ClientBase): Promise<void> {
  const state = deferring.get(client);
  if (state === undefined || state.pending.length === 0) return;
  const parts = state.pending.splice(0);
  await state.raw.query(combinedQuery(parts));
}

/**
 * Runs the query `sql` (one SELECT with `$n` parameters and no WITH of its own) in one statement
 * with `own` parts (writes of the caller's, as CTEs) and the queued writes: one round trip. Call it
 * only for a query that reads no table those writes write, since every part of a statement sees
 * the one snapshot taken before any of them.
 */
export async function carrying<R extends pg.QueryResultRow>(
  client: pg.ClientBase,
  own: readonly Part[],
  sql: string,
  params: readonly unknown[],
): Promise<R[]> {
  const state = deferring.get(client);
  const parts = [...(state === undefined ? [] : state.pending.splice(0)), ...own];
  const db = state?.raw ?? client;
  if (parts.length === 0) return (await db.query<R>(named(sql, [...params]))).rows;
  return (await db.query<R>(combinedQuery([...parts, { sql, params, name: 'carried' }], 'SELECT * FROM carried'))).rows;
}
