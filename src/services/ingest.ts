/**
 * Ingest (docs/api.md, Data and ingest): the one write path for market data, used by the CLI, by
 * `POST /v1/ingest`, by the demo loader and by the demo feed.
 *
 * A batch is validated whole before anything is written; a batch with any bad record is refused
 * naming each bad line. Writes happen in transactions; derived views (token price, candle
 * rollups, and the hooks registered below) are updated in the same transaction as the trades.
 * This is the SQLite ingest, synchronous; the rules it applies are engine-neutral
 * (ingest-slice.ts) and src/services/ingest-engine.ts applies them on any engine, awaited
 * (docs/architecture.md, The ingest boundary).
 */
import { writeTransaction, type Store } from '../store/db.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { parseRecord, type IngestRecord, type TradeRecord } from '../domain/records.js';
import { createIngestRepo, createSqliteIngestWriter, type IngestTx } from '../store/ingest-repo.js';
import { validateChunked, writeInSlices, WRITE_SLICE, type SliceResult } from './ingest-batch.js';
import { settleSlice, sliceRows } from './ingest-slice.js';

export type { IngestTx };

export type IngestResult = { accepted: number; duplicates: number };
export type LineError = { line: number; error: string };
export type NumberedRecord = { line: number; record: IngestRecord };

/**
 * How a batch is written. `demo` marks demo records. `within` runs in the batch's transaction
 * after its records and hooks, so a writer's own rows (the chain indexer's position,
 * src/indexer/evm/) commit or roll back with the records; like a hook, it must not answer a
 * promise on SQLite.
 */
export type WriteOptions = { demo?: boolean; within?: (tx: IngestTx) => Promise<void> | void };

/** A batch refused whole: nothing of it was written. */
export class IngestRejected extends Error {
  constructor(readonly errors: LineError[]) {
    super(`${errors.length} invalid record${errors.length === 1 ? '' : 's'}`);
  }
}

/**
 * A trade as stored, handed to derived views and hooks: its record with the row's id, its token's
 * id and its side as a flag. toTradeJson (store/trades-repo.ts) turns it, with its market's dex, into the API's form.
 */
export type InsertedTrade = Omit<TradeRecord, 'type'> & { id: number; tokenId: number; isBuy: boolean };

/** What a hook is handed: one slice's new trades and touched tokens. */
export type IngestBatch = {
  trades: readonly InsertedTrade[];
  touchedTokens: ReadonlySet<number>;
  now: number;
  /** Whether this is the transaction's first call: a sliced batch calls its hooks once per slice. */
  first: boolean;
};

/**
 * Runs inside the ingest transaction after a slice's records are written (docs/architecture.md,
 * The ingest boundary). Hooks keep views that ingest must update atomically (events, read
 * views, ...). `tx` names the engine and, on PostgreSQL, the transaction's client: a hook that
 * writes builds its statements on it. On SQLite the transaction is synchronous: a hook must
 * answer undefined there (it runs its statements at once); on PostgreSQL it may answer a promise.
 * Hooks that write nothing (metrics, caches) take the batch alone.
 */
export type IngestHook = (batch: IngestBatch, tx: IngestTx) => Promise<void> | void;

/** A hook of the SQLite store: its statements are its own, it needs no handle and never awaits. */
export type SqliteIngestHook = (batch: IngestBatch) => void;

export type Validator = {
  /** Validates one raw record at `line`; returns it, or records the error and returns null. */
  check(line: number, value: unknown): IngestRecord | null;
  /** Records a line refused before validation (not JSON). */
  reject(line: number, error: string): void;
  /** The first MAX_ERRORS errors, then a line saying the rest are not listed. */
  readonly errors: LineError[];
  /** How many lines were refused in all. */
  readonly invalid: number;
};

/**
 * The ingest as services, routes and the CLI use it, on either engine (docs/architecture.md, The
 * ingest boundary): the SQLite ingest below answers `write` and `ingest` at once; the engine
 * ingest (src/services/ingest-engine.ts, on PostgreSQL) answers promises. Await both.
 */
export type AnyIngest = {
  /**
   * A validator for one batch. `names` gives the token addresses the batch names (read only where
   * the engine must look stored tokens up before validating: PostgreSQL, once per call).
   */
  validatorFor(names: () => Promise<Iterable<string>>): Promise<Validator>;
  validate(values: readonly { line: number; value: unknown }[]): Promise<NumberedRecord[]>;
  writeSliced(records: readonly NumberedRecord[], opts?: WriteOptions): Promise<IngestResult>;
  /** Writes already validated records in one transaction. */
  write(records: readonly NumberedRecord[], opts?: WriteOptions): IngestResult | Promise<IngestResult>;
  ingest(values: readonly { line: number; value: unknown }[], opts?: { demo?: boolean }): IngestResult | Promise<IngestResult>;
  addHook(hook: IngestHook): void;
};

export type Ingest = Omit<AnyIngest, 'write' | 'ingest'> & {
  /** A validator for one batch: tracks which tokens the batch defines, in order. */
  validator(): Validator;
  /**
   * Validates every value in chunks that yield to the event loop; the records, or throws
   * IngestRejected naming the bad ones.
   */
  validate(values: readonly { line: number; value: unknown }[]): Promise<NumberedRecord[]>;
  /**
   * Writes validated records as one atomic transaction. Beyond one slice (WRITE_SLICE records)
   * the transaction stays open across slices and the event loop runs between them; requests
   * wait on `store.settled()` meanwhile (docs/api.md, Ingest limits). Batches run one at a time.
   */
  writeSliced(records: readonly NumberedRecord[], opts?: WriteOptions): Promise<IngestResult>;
  /** Writes already validated records in one transaction. */
  write(records: readonly NumberedRecord[], opts?: WriteOptions): IngestResult;
  /** Validates every record, then writes all of them in one transaction, or throws IngestRejected. */
  ingest(values: readonly { line: number; value: unknown }[], opts?: { demo?: boolean }): IngestResult;
  /** Adds a hook called in the write transaction. */
  addHook(hook: IngestHook): void;
};

const MAX_ERRORS = 100;

/**
 * A validator for one batch, tracking which tokens the batch defines, in order; `stored(address)`
 * tells whether a token is stored already (asked once per address).
 */
export function createValidator(stored: (address: string) => boolean): Validator {
  const defined = new Set<string>();
  const known = new Map<string, boolean>();
  const errors: LineError[] = [];
  const exists = (address: string): boolean => {
    if (defined.has(address)) return true;
    let k = known.get(address);
    if (k === undefined) {
      k = stored(address);
      known.set(address, k);
    }
    return k;
  };
  let invalid = 0;
  const reject = (line: number, error: string) => {
    invalid++;
    if (errors.length < MAX_ERRORS) errors.push({ line, error });
    else if (errors.length === MAX_ERRORS) errors.push({ line, error: 'too many errors; the rest are not listed' });
  };
  return {
    errors,
    get invalid() {
      return invalid;
    },
    reject,
    check(line, value) {
      const parsed = parseRecord(value);
      let error: string | null = null;
      if (!parsed.ok) error = parsed.error;
      else if (parsed.record.type === 'token') defined.add(parsed.record.address);
      else if (!exists(parsed.record.token)) error = `unknown token ${parsed.record.token}`;
      if (error === null) return parsed.ok ? parsed.record : null;
      reject(line, error);
      return null;
    },
  };
}

export function createIngest(deps: { store: Store; clock: Clock; hooks?: IngestHook[] }): Ingest {
  const { db } = deps.store;
  const hooks: IngestHook[] = [...(deps.hooks ?? [])];
  const { tokenId } = createIngestRepo(db);
  const writer = createSqliteIngestWriter(db);
  const tx: IngestTx = { engine: 'sqlite' };

  function validator(): Validator {
    return createValidator((address) => tokenId.get(address) !== undefined);
  }

  const writeTx = writeTransaction(db, (records: readonly NumberedRecord[], demo: boolean, first: boolean, within?: WriteOptions['within']): SliceResult => {
    const now = nowSeconds(deps.clock);
    const settled = settleSlice(records, writer.rows(sliceRows(records, now, demo)), now);
    writer.derived(settled.derived);
    const batch: IngestBatch = { trades: settled.trades, touchedTokens: settled.touched, now, first };
    for (const hook of hooks) {
      // Nothing may await inside this transaction: a hook answering a promise would run after it.
      if (hook(batch, tx) instanceof Promise) throw new Error('an ingest hook answered a promise inside a SQLite transaction');
    }
    if (within !== undefined && within(tx) instanceof Promise) throw new Error('a write answered a promise inside a SQLite transaction');
    return settled.result;
  });

  function write(records: readonly NumberedRecord[], opts: WriteOptions = {}): IngestResult {
    const { accepted, duplicates, change } = writeTx(records, opts.demo === true, true, opts.within);
    // Tell caches only after the commit, so no reader can cache a view of uncommitted data.
    if (change === 'all' || change.size > 0) deps.store.notifyChange({ tokens: change });
    return { accepted, duplicates };
  }

  return {
    validator,
    validatorFor: async () => validator(),
    validate: (values) => validateChunked(validator(), values),
    write,
    writeSliced: (records, opts = {}) => {
      // A refusal answers a rejected promise, as the sliced and PostgreSQL writes do, not a throw.
      if (records.length <= WRITE_SLICE && deps.store.settled() === null) return new Promise((resolve) => resolve(write(records, opts)));
      // writeInSlices writes no slice for an empty batch: its `within` still needs a transaction.
      if (records.length === 0) return deps.store.exclusive(async () => write(records, opts));
      let slices = 0;
      const last = Math.ceil(records.length / WRITE_SLICE) - 1;
      return writeInSlices(
        deps.store,
        (slice) => {
          const n = slices++;
          return writeTx(slice, opts.demo === true, n === 0, n === last ? opts.within : undefined);
        },
        records,
      );
    },
    ingest(values, opts) {
      const v = validator();
      const records: NumberedRecord[] = [];
      for (const { line, value } of values) {
        const record = v.check(line, value);
        if (record !== null) records.push({ line, record });
      }
      if (v.errors.length > 0) throw new IngestRejected(v.errors);
      return write(records, opts);
    },
    addHook(hook) {
      hooks.push(hook);
    },
  };
}
