/**
 * The store handle every engine gives (docs/architecture.md, The store): what the app, its
 * caches, the stream hub and the services need from a store besides its repos. Change
 * listeners (a commit of this process, or one heard from another process, tells them what
 * changed), the gate of a write held open across awaits (SQLite's sliced ingest), whether the
 * store is full, and closing it. The SQLite `Store` of db.ts is this plus its connection; the
 * PostgreSQL store (src/store/pg/pg-store.ts) is this plus its pool. Nothing above src/store/
 * needs more than this, except the one place that picks each engine's parts
 * (src/services/index.ts).
 */

/**
 * What changed: the ids of the tokens whose data changed, or 'all' when it is not known; whether
 * accounts changed, and the keys a revocation ended (other instances hear them as a `revoke`).
 * `remote`: heard from another process (the bus), which said which tokens but not which trades.
 */
export type Change = { tokens: ReadonlySet<number> | 'all'; accounts?: boolean; revoked?: readonly string[]; remote?: boolean };
export type ChangeListener = (change: Change) => void;

export type StoreKind = 'sqlite' | 'postgres';

export type StoreHandle = {
  readonly kind: StoreKind;
  /**
   * Whether requests go on reading (on other connections) while a write transaction of this
   * process is open, seeing only what is committed (PostgreSQL); false where readers wait for the
   * write to settle (SQLite: `settled()`). A cache marked stale inside a write must then be
   * marked again when the commit is announced.
   */
  readonly readsDuringWrites: boolean;
  /**
   * Tells listeners about writes by other processes that the store can see for itself (SQLite:
   * `PRAGMA data_version`, at most once per event-loop turn). A no-op where other processes'
   * commits arrive as notices (PostgreSQL: the bus of src/coord/wiring.ts).
   */
  checkExternalChanges(): void;
  /** Tells listeners what a write of this process changed, after its commit. */
  notifyChange(change: Change): void;
  onChange(listener: ChangeListener): () => void;
  /** A number that grows with every change seen (local or external). */
  version(): number;
  /**
   * True after a write failed because the store is full (SQLITE_FULL, or PostgreSQL's disk_full),
   * until a write succeeds: a full disk shows only that way (/healthz reports it). Per instance:
   * each PostgreSQL instance learns it from a write of its own.
   */
  full: boolean;
  /**
   * Runs `fn`, a write transaction held open across awaits (a large ingest written in slices),
   * after any other such write of this process has finished. While it runs, `settled()` gives
   * readers a promise to wait on, so they never see half of it (docs/api.md, Ingest limits).
   * On PostgreSQL readers use other connections and see the last commit: `fn` just runs.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** A promise that resolves when the running sliced write ends, or null when none runs. */
  settled(): Promise<void> | null;
  /** False once closed (a worker still running after the store closed stops quietly). */
  isOpen(): boolean;
  close(): void | Promise<void>;
};

/** The listeners and the exclusive gate of a store, the same on every engine. */
export type ChangeHub = Pick<StoreHandle, 'notifyChange' | 'onChange' | 'version' | 'exclusive' | 'settled'> & { clear(): void };

export function createChangeHub(opts: { gate: boolean }): ChangeHub {
  const listeners = new Set<ChangeListener>();
  let version = 0;
  let tail: Promise<unknown> = Promise.resolve();
  let running: Promise<void> | null = null;

  return {
    notifyChange(change) {
      version++;
      for (const l of listeners) l(change);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    version: () => version,
    exclusive<T>(fn: () => Promise<T>): Promise<T> {
      if (!opts.gate) return fn();
      const run = tail.then(async () => {
        let resolve!: () => void;
        running = new Promise<void>((r) => (resolve = r));
        try {
          return await fn();
        } finally {
          running = null;
          resolve();
        }
      });
      tail = run.catch(() => undefined);
      return run;
    },
    settled: () => running,
    clear: () => listeners.clear(),
  };
}
