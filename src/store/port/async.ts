/**
 * The async repo contract (docs/operations.md, Many instances: the pg repos and their client).
 * The SQLite repos answer synchronously; the PostgreSQL ones cannot. `Async<R>` is the repo R
 * with every method answering a promise of what it answered, so a service written against
 * `Async<XRepo>` runs on either engine: `asyncRepo()` wraps a SQLite repo (statements unchanged,
 * one resolved promise per call) and each PostgreSQL twin in src/store/pg/ is typed as the
 * `Async<...>` of its SQLite repo, so the compiler proves both have the same methods.
 *
 * A repo's own transaction is a method named `inTransaction`: synchronously `(fn: () => T) => T`
 * on SQLite, it becomes `(fn: (tx) => Promise<T>) => Promise<T>`, where `tx` is the same repo
 * bound to the transaction (on PostgreSQL, built on the transaction's client). Callers use `tx`,
 * never the outer repo, inside `fn`.
 */
import type { StoreHandle } from './handle.js';

/** What sqliteTransaction needs of a SQLite connection (better-sqlite3's Database has it). */
type SqliteConnection = { exec(sql: string): unknown; readonly inTransaction: boolean };

/** The repo `R` without its own transaction method. */
type Body<R> = Omit<R, 'inTransaction'>;

/** A method answering a promise of its synchronous answer (a promise stays one promise). */
type AsyncMethod<F> = F extends (...args: infer A) => infer T ? (...args: A) => Promise<Awaited<T>> : never;

/** A transaction of the repo: `fn` gets the repo bound to it; committed when `fn` resolves, rolled back when it throws. */
export type InTransaction<Tx> = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

/** The async twin of the synchronous repo `R`. */
export type Async<R> = { [K in keyof Body<R>]: AsyncMethod<Body<R>[K]> } & ('inTransaction' extends keyof R
  ? { inTransaction: InTransaction<Async<R>> }
  : unknown);

/**
 * Runs `fn` as one SQLite write transaction held open across awaits (BEGIN IMMEDIATE ... COMMIT,
 * ROLLBACK when it throws), after any other such write of the process, with `store.settled()`
 * telling readers to wait meanwhile: the one connection shows uncommitted rows to every caller,
 * so this is the same gate as a sliced ingest's (docs/api.md, Ingest limits).
 */
export function sqliteTransaction(store: Pick<StoreHandle, 'exclusive'> & { db: SqliteConnection }): <T>(fn: () => Promise<T>) => Promise<T> {
  const { db } = store;
  return (fn) =>
    store.exclusive(async () => {
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn();
        db.exec('COMMIT');
        return result;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    });
}

/**
 * A SQLite repo as its async twin. A repo with `inTransaction` needs `transaction` (from
 * `sqliteTransaction(store)`): the repo's synchronous transaction cannot hold an await, so the
 * async one runs the callback, given this same wrapper as `tx`, inside the store's gated
 * transaction instead.
 */
export function asyncRepo<R extends object>(repo: R, transaction?: <T>(fn: () => Promise<T>) => Promise<T>): Async<R> {
  const out: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(repo)) {
    if (typeof method !== 'function' || name === 'inTransaction') continue;
    out[name] = (...args: unknown[]) => {
      try {
        return Promise.resolve((method as (...a: unknown[]) => unknown).apply(repo, args));
      } catch (err) {
        return Promise.reject(err);
      }
    };
  }
  if ('inTransaction' in repo) {
    if (transaction === undefined) throw new TypeError('asyncRepo: a repo with inTransaction needs the store transaction (sqliteTransaction(store))');
    out.inTransaction = <T>(fn: (tx: unknown) => Promise<T>) => transaction(() => fn(out));
  }
  return out as Async<R>;
}
