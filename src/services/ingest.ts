/**
 * Ingest (docs/api.md, Data and ingest): the one write path for market data, used by the CLI, by
 * `POST /v1/ingest`, by the demo loader, the demo feed and the chain indexer, on either engine.
 *
 * A batch is validated whole before anything is written; a batch with any bad record is refused
 * naming each bad line. A batch is one transaction of the engine; derived views (token price,
 * candle rollups, and the hooks registered below) are updated in the same transaction as the
 * trades, and caches hear of the change only after the commit. The steps of a slice and of a
 * retraction are written once (ingest-steps.ts) and driven two ways (docs/architecture.md, The
 * ingest boundary): at once inside SQLite's write transaction, so the SQLite ingest answers
 * `write` and `ingest` synchronously, and awaited on PostgreSQL.
 */
import type { Change } from '../store/port/handle.js';
import {
  addSlice,
  type AsyncIngestEngine,
  type IngestEngine,
  type IngestHook,
  type IngestResult,
  type IngestTx,
  type NumberedRecord,
  type SliceResult,
  type SyncIngestEngine,
  type WriteOptions,
} from '../store/port/ingest.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { oneChain, type Chains } from '../domain/chains.js';
import { validateChunked } from './ingest-batch.js';
import { addNames, createValidator, IngestRejected, noNames, type NamedAddresses, type Validator } from './ingest-validator.js';
import type { RetractHook, RetractOptions, RetractResult, Retraction } from '../store/port/retract.js';
import { checkRetraction } from './ingest-retract.js';
import { retractSteps, runAsync, runSync, sliceSteps, type RetractDone } from './ingest-steps.js';

// The ingest contract is the store's (src/store/port/ingest.ts) and the validator its own file;
// named here too so callers keep one import for the ingest.
export type { IngestBatch, IngestEngine, IngestHook, IngestResult, IngestTx, InsertedTrade, SqliteIngestHook, WriteOptions } from '../store/port/ingest.js';
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
 * ingest boundary): on SQLite it answers `write` and `ingest` at once; on PostgreSQL, promises.
 * Await both.
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

/** The ingest on SQLite: `write` and `ingest` answer at once. */
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

/** The ingest on an engine that answers promises (PostgreSQL): `write` is `writeSliced` (a batch is one transaction however long). */
export type EngineIngest = Omit<AnyIngest, 'writeSliced' | 'write' | 'ingest'> & {
  writeSliced(records: readonly NumberedRecord[], opts?: WriteOptions): Promise<IngestResult>;
  write(records: readonly NumberedRecord[], opts?: WriteOptions): Promise<IngestResult>;
  ingest(values: readonly { line: number; value: unknown }[], opts?: { demo?: boolean }): Promise<IngestResult>;
};

type Deps<E extends IngestEngine> = {
  engine: E;
  clock: Clock;
  hooks?: IngestHook[];
  /** Tells caches (the store's listeners) what a batch or a retraction changed, after its commit. */
  onCommit: (change: Change) => void;
  /** The deployment's chains: a record's `chain` names one (default: solana alone; docs/chains.md). */
  chains?: Chains;
};

/** The token and market addresses raw values name, valid or not (validation decides). */
function namedIn(values: readonly { value: unknown }[], chains: Chains): NamedAddresses {
  const out = noNames();
  for (const { value } of values) addNames(out, value, chains);
  return out;
}

export function createIngest(deps: Deps<SyncIngestEngine>): Ingest;
export function createIngest(deps: Deps<AsyncIngestEngine>): EngineIngest;
export function createIngest(deps: Deps<IngestEngine>): Ingest | EngineIngest;
export function createIngest(deps: Deps<IngestEngine>): Ingest | EngineIngest {
  const hooks: IngestHook[] = [...(deps.hooks ?? [])];
  const chains = deps.chains ?? oneChain();
  const retractHooks: RetractHook[] = [];
  const announce = (change: SliceResult['change']): void => {
    if (change === 'all' || change.size > 0) deps.onCommit({ tokens: change });
  };
  const announceRetraction = (done: RetractDone): void => {
    if (done.all || done.touched.size > 0) deps.onCommit({ tokens: done.all ? 'all' : done.touched });
  };
  const common = {
    addHook(hook: IngestHook) {
      hooks.push(hook);
    },
    addRetractHook(hook: RetractHook) {
      retractHooks.push(hook);
    },
  };
  return deps.engine.sync ? sqliteIngest(deps.engine) : asyncIngest(deps.engine);

  function sqliteIngest(engine: SyncIngestEngine): Ingest {
    const { tx, writer, retractor } = engine;
    const writeTx = engine.transaction((records: readonly NumberedRecord[], demo: boolean, first: boolean, within?: WriteOptions['within']) =>
      runSync(sliceSteps({ tx, writer, hooks }, records, nowSeconds(deps.clock), demo, first, within)),
    );
    const retractTx = engine.retractTransaction((r: Retraction, records: readonly NumberedRecord[], within?: RetractOptions['within']) =>
      runSync(retractSteps({ tx, writer, retractor, hooks: retractHooks }, r, records, nowSeconds(deps.clock), within)),
    );
    const validator = (): Validator => createValidator({ token: engine.isToken, market: engine.isMarket }, chains);

    function write(records: readonly NumberedRecord[], opts: WriteOptions = {}): IngestResult {
      const { accepted, duplicates, change } = writeTx(records, opts.demo === true, true, opts.within);
      // Tell caches only after the commit, so no reader can cache a view of uncommitted data.
      announce(change);
      return { accepted, duplicates };
    }

    return {
      ...common,
      validator,
      validatorFor: async () => validator(),
      validate: (values) => validateChunked(validator(), values),
      write,
      async writeSliced(records, opts = {}) {
        if (records.length <= engine.slice && engine.settled() === null) return write(records, opts);
        // The sliced write writes no slice for an empty batch: its `within` still needs a transaction.
        if (records.length === 0) return engine.exclusive(async () => write(records, opts));
        let slices = 0;
        const last = Math.ceil(records.length / engine.slice) - 1;
        const demo = opts.demo === true;
        const sum: SliceResult = { accepted: 0, duplicates: 0, change: new Set() };
        await engine.sliced(
          (slice) => {
            const n = slices++;
            addSlice(sum, writeTx(slice, demo, n === 0, n === last ? opts.within : undefined));
          },
          records,
          () => announce(sum.change),
        );
        return { accepted: sum.accepted, duplicates: sum.duplicates };
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
      async retract(r, opts = {}) {
        const records = checkRetraction(
          r,
          // A retraction writes back no trades (checkRetraction refuses them), so no market is looked up.
          createValidator({ token: (address) => !r.tokens.includes(address) && engine.isToken(address), market: () => false }, chains),
          chains,
        );
        // In the ingest's write order: after a sliced batch of this process, never inside it.
        const done = await engine.exclusive(async () => retractTx(r, records, opts.within));
        announceRetraction(done);
        return { removed: done.removed, tokens: done.tokens };
      },
    };
  }

  function asyncIngest(engine: AsyncIngestEngine): EngineIngest {
    async function writeSliced(records: readonly NumberedRecord[], opts: WriteOptions = {}): Promise<IngestResult> {
      const demo = opts.demo === true;
      const total = await engine.transaction(async (tx: IngestTx, writer) => {
        const sum: SliceResult = { accepted: 0, duplicates: 0, change: new Set() };
        // An empty batch still runs its one slice, as on SQLite: hooks see every transaction.
        for (let i = 0; i === 0 || i < records.length; i += engine.slice) {
          const lastSlice = i + engine.slice >= records.length;
          const steps = sliceSteps(
            { tx, writer, hooks },
            records.slice(i, i + engine.slice),
            nowSeconds(deps.clock),
            demo,
            i === 0,
            lastSlice ? opts.within : undefined,
          );
          addSlice(sum, await runAsync(steps));
        }
        return sum;
      });
      announce(total.change);
      return { accepted: total.accepted, duplicates: total.duplicates };
    }

    /** A validator answering from two reads: the stored tokens and the stored markets of those named. */
    async function validatorOf(named: NamedAddresses): Promise<Validator> {
      const [tokens, markets] = await Promise.all([engine.storedTokens([...named.tokens]), engine.storedMarkets([...named.markets])]);
      return createValidator({ token: (address) => tokens.has(address), market: (address) => markets.has(address) }, chains);
    }
    const validate = async (values: readonly { line: number; value: unknown }[]): Promise<NumberedRecord[]> =>
      validateChunked(await validatorOf(namedIn(values, chains)), values);

    return {
      ...common,
      validatorFor: async (names) => validatorOf(await names()),
      validate,
      writeSliced,
      write: writeSliced,
      ingest: async (values, opts) => writeSliced(await validate(values), opts),
      async retract(r, opts = {}) {
        // Validation first, outside the transaction: a refusal writes nothing.
        const named = noNames();
        for (const x of r.records) addNames(named, x.type === 'token' ? { ...x, token: x.address } : x, chains);
        const stored = await engine.storedTokens([...named.tokens]);
        const records = checkRetraction(
          r,
          // A retraction writes back no trades (checkRetraction refuses them), so no market is looked up.
          createValidator({ token: (address) => !r.tokens.includes(address) && stored.has(address), market: () => false }, chains),
          chains,
        );
        const done = await engine.transaction(async (tx, writer) =>
          runAsync(retractSteps({ tx, writer, retractor: engine.retractor(tx), hooks: retractHooks }, r, records, nowSeconds(deps.clock), opts.within)),
        );
        announceRetraction(done);
        return { removed: done.removed, tokens: done.tokens };
      },
    };
  }
}
