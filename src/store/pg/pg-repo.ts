/**
 * What every PostgreSQL repo shares (docs/operations.md, Many instances: the pg repos and their
 * client). A repo is built on a `Queryable`: the instance's pool, for calls that stand alone, or
 * the client of a transaction, for calls that must be part of the caller's transaction (an
 * ingest's hooks, a count and the insert it allows). The SQLite repos get the same effect from
 * the one connection; here the caller builds the repo on its transaction's client, as the
 * webhook outbox twin is built.
 */
import pg from 'pg';

/** A pool (each call takes any connection) or one client (inside its transaction). */
export type Queryable = pg.Pool | pg.ClientBase;

/** At most this many statement texts get a name; beyond it a text is sent unnamed, as before. */
const MAX_NAMED = 2000;
const names = new Map<string, string>();

/**
 * A read as a named prepared statement: one name per distinct text, so PostgreSQL parses and
 * plans it once per connection instead of at every call (an unnamed statement is planned again
 * each time). A name is per connection: pg parses it on a pooled connection the first time that
 * connection runs it and remembers it there, so any connection of the pool can take any call.
 * The texts are the repos' own constants and the few shapes of a window covering, so the set is
 * small; the cap only bounds what a statement built from data could add to every connection.
 */
export function named(text: string, values: unknown[]): pg.QueryConfig {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMED) return { text, values };
    name = `r${names.size + 1}`;
    names.set(text, name);
  }
  return { name, text, values };
}

/** The rows of one read (a named prepared statement: see named()). */
export async function rows<R extends object>(db: Queryable, sql: string, params: unknown[] = []): Promise<R[]> {
  return (await db.query<R>(named(sql, params))).rows;
}

/** The first row of one read, or undefined (a named prepared statement: see named()). */
export async function row<R extends object>(db: Queryable, sql: string, params: unknown[] = []): Promise<R | undefined> {
  return (await db.query<R>(named(sql, params))).rows[0];
}

/** How many rows one statement changed. */
export async function changes(db: Queryable, sql: string, params: unknown[] = []): Promise<number> {
  return (await db.query(sql, params)).rowCount ?? 0;
}

/** A LIMIT parameter as SQLite reads it: a negative limit means none (PostgreSQL refuses one). */
export const limitParam = (limit: number): number | null => (limit < 0 ? null : limit);

let savepoints = 0;

/**
 * Runs `fn` in one transaction: on a pool, a transaction of its own on one connection (holding
 * the transaction-level advisory lock `lockKey` first when given, so such transactions run one at
 * a time on every instance, as SQLite's BEGIN IMMEDIATE makes writers do); on a client already in
 * a transaction, a savepoint inside it (as SQLite nests a transaction). Committed when `fn`
 * resolves, rolled back when it throws.
 */
export async function pgTransaction<T>(db: Queryable, lockKey: string | null, fn: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  if (!(db instanceof pg.Pool)) {
    const name = `sp_${++savepoints}`;
    await db.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn(db);
      await db.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await db.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    }
  }
  const client = await db.connect();
  let broken = false;
  // A connection lost while checked out also emits 'error' on the client, and the pool listens
  // only to idle ones: unheard, it would end the process. The failed statement carries the error.
  const lost = () => {
    broken = true;
  };
  client.on('error', lost);
  try {
    try {
      // BEGIN and the lock in one round trip (two statements of one simple query; the key is one of
      // the constant keys of this code, checked to be digits since it is not sent as a parameter).
      if (lockKey === null) await client.query('BEGIN');
      else {
        if (!/^[0-9]{1,19}$/.test(lockKey)) throw new Error(`advisory lock key ${lockKey} is not a number`);
        await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${lockKey})`);
      }
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
    client.removeListener('error', lost);
    client.release(broken);
  }
}
