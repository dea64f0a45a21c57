/**
 * Ingest on any engine (docs/architecture.md, The ingest boundary): the same rules as
 * src/services/ingest.ts (its validator, the slice rules of ingest-slice.ts, its hooks), with
 * every store call awaited, so it runs on PostgreSQL, where nothing answers synchronously. A
 * batch is one transaction of the engine (on PostgreSQL, inWriteOrder(): record numbers are
 * committed in order, and a CLI file of up to 5,000 records is one transaction), written a slice
 * at a time, each slice in a fixed number of statements. Changes are announced after the
 * commit, never before, so no reader caches a view of uncommitted rows.
 */
import type { Async } from '../store/port/async.js';
import type { IngestBatch, IngestEngine, IngestHook, IngestResult, IngestTx, IngestWriter } from '../store/port/ingest.js';
import type { Change } from '../store/sqlite/db.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import type { AnyIngest, WriteOptions } from './ingest.js';
import { addNames, createValidator, noNames, type NamedAddresses, type NumberedRecord, type Validator } from './ingest-validator.js';

export type { IngestEngine } from '../store/port/ingest.js';
import { validateChunked, type SliceResult } from './ingest-batch.js';
import { settleSlice, sliceRows } from './ingest-slice.js';
import type { RetractBatch, RetractHook, RetractOptions, RetractResult, Retraction } from '../store/port/retract.js';
import { checkRetraction } from './ingest-retract.js';

/** The engine ingest: `write` is `writeSliced` (a batch is one transaction however long). */
export type EngineIngest = Omit<AnyIngest, 'writeSliced' | 'write' | 'ingest'> & {
  writeSliced(records: readonly NumberedRecord[], opts?: WriteOptions): Promise<IngestResult>;
  write(records: readonly NumberedRecord[], opts?: WriteOptions): Promise<IngestResult>;
  ingest(values: readonly { line: number; value: unknown }[], opts?: { demo?: boolean }): Promise<IngestResult>;
};

/** The token and market addresses raw values name, valid or not (validation decides). */
function namedIn(values: readonly { value: unknown }[]): NamedAddresses {
  const out = noNames();
  for (const { value } of values) addNames(out, value);
  return out;
}

export function createEngineIngest(deps: { engine: IngestEngine; clock: Clock; hooks?: IngestHook[]; onCommit?: (change: Change) => void }): EngineIngest {
  const { engine } = deps;
  const hooks: IngestHook[] = [...(deps.hooks ?? [])];
  const retractHooks: RetractHook[] = [];

  async function writeSlice(tx: IngestTx, writer: Async<IngestWriter>, records: readonly NumberedRecord[], demo: boolean, first: boolean) {
    const now = nowSeconds(deps.clock);
    const settled = settleSlice(records, await writer.rows(sliceRows(records, now, demo)), now);
    await writer.derived(settled.derived);
    const batch: IngestBatch = { trades: settled.trades, touchedTokens: settled.touched, now, first };
    for (const hook of hooks) {
      const done = hook(batch, tx);
      if (done !== undefined) await done;
    }
    return settled.result;
  }

  async function writeSliced(records: readonly NumberedRecord[], opts: WriteOptions = {}): Promise<IngestResult> {
    const demo = opts.demo === true;
    const total = await engine.transaction(async (tx, writer) => {
      const sum: SliceResult = { accepted: 0, duplicates: 0, change: new Set() };
      // An empty batch still runs its one slice, as on SQLite: hooks see every transaction.
      for (let i = 0; i === 0 || i < records.length; i += engine.slice) {
        const r = await writeSlice(tx, writer, records.slice(i, i + engine.slice), demo, i === 0);
        sum.accepted += r.accepted;
        sum.duplicates += r.duplicates;
        if (r.change === 'all') sum.change = 'all';
        else if (sum.change !== 'all') for (const id of r.change) sum.change.add(id);
      }
      if (opts.within !== undefined) await opts.within(tx);
      return sum;
    });
    const { change } = total;
    if (change === 'all' || change.size > 0) deps.onCommit?.({ tokens: change });
    return { accepted: total.accepted, duplicates: total.duplicates };
  }

  /** A validator answering from two reads: the stored tokens and the stored markets of those named. */
  async function validatorOf(named: NamedAddresses): Promise<Validator> {
    const [tokens, markets] = await Promise.all([engine.storedTokens([...named.tokens]), engine.storedMarkets([...named.markets])]);
    return createValidator({ token: (address) => tokens.has(address), market: (address) => markets.has(address) });
  }

  async function validate(values: readonly { line: number; value: unknown }[]): Promise<NumberedRecord[]> {
    return validateChunked(await validatorOf(namedIn(values)), values);
  }

  async function validatorFor(names: () => Promise<NamedAddresses>): Promise<Validator> {
    return validatorOf(await names());
  }

  async function retract(r: Retraction, opts: RetractOptions = {}): Promise<RetractResult> {
    // Validation first, outside the transaction: a refusal writes nothing.
    const stored = await engine.storedTokens([...new Set(r.records.map((x) => (x.type === 'token' ? x.address : x.token)))]);
    const records = checkRetraction(
      r,
      // A retraction writes back no trades (checkRetraction refuses them), so no market is looked up.
      createValidator({ token: (address) => !r.tokens.includes(address) && stored.has(address), market: () => false }),
    );
    const done = await engine.transaction(async (tx, writer) => {
      const now = nowSeconds(deps.clock);
      const retractor = engine.retractor(tx);
      const removal = await retractor.remove(r, now);
      const touched = new Set(removal.touched);
      // A deleted market changes every token that names it, as a new one does at ingest.
      let all = removal.deletedMarkets > 0;
      if (records.length > 0) {
        const settled = settleSlice(records, await writer.rows(sliceRows(records, now, false)), now);
        await writer.derived(settled.derived);
        for (const id of settled.touched) touched.add(id);
        all ||= settled.result.change === 'all';
      }
      await retractor.settle(touched, now);
      const batch: RetractBatch = { trades: removal.trades, touchedTokens: touched, deletedTokens: removal.deletedTokens, now };
      for (const hook of retractHooks) {
        const pending = hook(batch, tx);
        if (pending !== undefined) await pending;
      }
      if (opts.within !== undefined) await opts.within(tx);
      const tokens = [...new Set([...removal.deletedTokens, ...(await retractor.addresses(touched))])].sort();
      return { removed: removal.trades.length, touched, all, tokens };
    });
    if (done.all || done.touched.size > 0) deps.onCommit?.({ tokens: done.all ? 'all' : done.touched });
    return { removed: done.removed, tokens: done.tokens };
  }

  return {
    retract,
    addRetractHook(hook) {
      retractHooks.push(hook);
    },
    validatorFor,
    validate,
    writeSliced,
    write: writeSliced,
    ingest: async (values, opts) => writeSliced(await validate(values), opts),
    addHook(hook) {
      hooks.push(hook);
    },
  };
}
