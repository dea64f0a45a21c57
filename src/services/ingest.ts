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
import { writeTransaction, type Store } from '../store/sqlite/db.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { createIngestRepo, createSqliteIngestWriter } from '../store/sqlite/ingest-repo.js';
import type { IngestBatch, IngestHook, IngestResult, IngestTx, WriteOptions } from '../store/port/ingest.js';
import { validateChunked, writeInSlices, WRITE_SLICE, type SliceResult } from './ingest-batch.js';
import { settleSlice, sliceRows } from './ingest-slice.js';
import { createValidator, IngestRejected, type NamedAddresses, type NumberedRecord, type Validator } from './ingest-validator.js';
import type { RetractBatch, RetractHook, RetractOptions, RetractResult, Retraction } from '../store/port/retract.js';
import { createSqliteRetractor } from '../store/sqlite/retract-repo.js';
import { checkRetraction } from './ingest-retract.js';

// The ingest contract is the store's (src/store/port/ingest.ts) and the validator its own file;
// named here too so callers keep one import for the ingest.
export type { IngestBatch, IngestHook, IngestResult, IngestTx, InsertedTrade, SqliteIngestHook, WriteOptions } from '../store/port/ingest.js';
export {
  addNames,
  createValidator,
  IngestRejected,
  noNames,
  type LineError,
  type NamedAddresses,
  type NumberedRecord,
  type Validator,
} from './ingest-validator.js';
export type { RetractBatch, RetractHook, RetractOptions, RetractResult, Retraction } from '../store/port/retract.js';

/**
 * The ingest as services, routes and the CLI use it, on either engine (docs/architecture.md, The
 * ingest boundary): the SQLite ingest below answers `write` and `ingest` at once; the engine
 * ingest (src/services/ingest-engine.ts, on PostgreSQL) answers promises. Await both.
 */
export type AnyIngest = {
  /**
   * A validator for one batch. `names` gives the token and market addresses the batch names
   * (read only where the engine must look them up before validating: PostgreSQL, once per call).
   */
  validatorFor(names: () => Promise<NamedAddresses>): Promise<Validator>;
  validate(values: readonly { line: number; value: unknown }[]): Promise<NumberedRecord[]>;
  writeSliced(records: readonly NumberedRecord[], opts?: WriteOptions): Promise<IngestResult>;
  /** Writes already validated records in one transaction. */
  write(records: readonly NumberedRecord[], opts?: WriteOptions): IngestResult | Promise<IngestResult>;
  ingest(values: readonly { line: number; value: unknown }[], opts?: { demo?: boolean }): IngestResult | Promise<IngestResult>;
  addHook(hook: IngestHook): void;
  /**
   * Takes trades back out (docs/indexer.md, Reorgs: what a retraction removes): in one
   * transaction, in the ingest's write order, removes the trades, markets and tokens of `r` with
   * everything derived from them, writes `r.records` back, runs the retract hooks and then
   * `opts.within`; after the commit tells the caches (this instance's and, through the bus, every
   * other's) which tokens changed. `r.records` are validated first: IngestRejected, nothing written.
   */
  retract(r: Retraction, opts?: RetractOptions): Promise<RetractResult>;
  /** Adds a hook called in every retraction's transaction (after the removal and the records). */
  addRetractHook(hook: RetractHook): void;
};

export type Ingest = Omit<AnyIngest, 'write' | 'ingest'> & {
  /** A validator for one batch: tracks which tokens and markets the batch defines, in order. */
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

export function createIngest(deps: { store: Store; clock: Clock; hooks?: IngestHook[] }): Ingest {
  const { db } = deps.store;
  const hooks: IngestHook[] = [...(deps.hooks ?? [])];
  const retractHooks: RetractHook[] = [];
  const retractor = createSqliteRetractor(db);
  const { tokenId, marketId, tokenAddress } = createIngestRepo(db);
  const writer = createSqliteIngestWriter(db);
  const tx: IngestTx = { engine: 'sqlite' };

  function validator(): Validator {
    return createValidator({ token: (address) => tokenId.get(address) !== undefined, market: (address) => marketId.get(address) !== undefined });
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

  const retractTx = writeTransaction(db, (r: Retraction, records: readonly NumberedRecord[], within?: RetractOptions['within']) => {
    const now = nowSeconds(deps.clock);
    const removal = retractor.remove(r, now);
    const touched = new Set(removal.touched);
    // A deleted market changes every token that names it, as a new one does at ingest.
    let all = removal.deletedMarkets > 0;
    if (records.length > 0) {
      const settled = settleSlice(records, writer.rows(sliceRows(records, now, false)), now);
      writer.derived(settled.derived);
      for (const id of settled.touched) touched.add(id);
      all ||= settled.result.change === 'all';
    }
    retractor.settle(touched, now);
    const batch: RetractBatch = { trades: removal.trades, touchedTokens: touched, deletedTokens: removal.deletedTokens, now };
    for (const hook of retractHooks) {
      if (hook(batch, tx) instanceof Promise) throw new Error('a retract hook answered a promise inside a SQLite transaction');
    }
    if (within !== undefined && within(tx) instanceof Promise) throw new Error('a retraction answered a promise inside a SQLite transaction');
    const tokens = tokenAddresses(touched, removal.deletedTokens);
    return { removed: removal.trades.length, touched, all, tokens };
  });
  // Addresses of the touched tokens, read inside the transaction (deleted ones are gone from the table by then).
  const tokenAddresses = (ids: ReadonlySet<number>, deleted: readonly string[]): string[] => {
    const out = new Set(deleted);
    for (const id of ids) {
      const a = tokenAddress.get(id);
      if (a !== undefined) out.add(a);
    }
    return [...out].sort();
  };

  async function retract(r: Retraction, opts: RetractOptions = {}): Promise<RetractResult> {
    const records = checkRetraction(
      r,
      // A retraction writes back no trades (checkRetraction refuses them), so no market is looked up.
      createValidator({ token: (address) => !r.tokens.includes(address) && tokenId.get(address) !== undefined, market: () => false }),
    );
    // In the ingest's write order: after a sliced batch of this process, never inside it.
    const done = await deps.store.exclusive(async () => retractTx(r, records, opts.within));
    if (done.all || done.touched.size > 0) deps.store.notifyChange({ tokens: done.all ? 'all' : done.touched });
    return { removed: done.removed, tokens: done.tokens };
  }

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
    retract,
    addRetractHook(hook) {
      retractHooks.push(hook);
    },
  };
}
