/**
 * The steps of an ingest slice and of a retraction, written once for every engine
 * (docs/architecture.md, The ingest boundary), as src/store/retract-steps.ts writes a
 * retraction's SQL once: each step is a generator that yields every engine and hook call it
 * makes and reads what the call answered. `runSync` drives it inside SQLite's write transaction,
 * where nothing may await (a call answering a promise there is refused: it would run after the
 * commit); `runAsync` awaits each answer (PostgreSQL).
 */
import type { Async } from '../store/port/async.js';
import type { IngestBatch, IngestHook, IngestTx, IngestWriter, NumberedRecord, SliceResult, SyncRetractor, WriteOptions } from '../store/port/ingest.js';
import type { EngineRetractor, RetractBatch, RetractHook, RetractOptions, Retraction } from '../store/port/retract.js';
import { settleSlice, sliceRows } from './ingest-slice.js';

/** One call of a step: its answer (or the promise of it), and who answered, to name in a refusal. */
type Call = { answer: unknown; who: string };
/** A step: yields calls, is handed their answers, returns its result. */
export type Steps<R> = Generator<Call, R, unknown>;

/** Yields one call and reads its answer. */
export function* call<T>(answer: T | Promise<T>, who = 'the engine'): Steps<T> {
  return (yield { answer, who }) as T;
}

/** Runs `steps` at once; throws when a call answers a promise. */
export function runSync<R>(steps: Steps<R>): R {
  let next = steps.next();
  while (next.done !== true) {
    const { answer, who } = next.value;
    if (answer instanceof Promise) throw new Error(`${who} answered a promise inside a SQLite transaction`);
    next = steps.next(answer);
  }
  return next.value;
}

/** Runs `steps`, awaiting every call's answer. */
export async function runAsync<R>(steps: Steps<R>): Promise<R> {
  let next = steps.next();
  while (next.done !== true) {
    const { answer } = next.value;
    next = steps.next(answer instanceof Promise ? await answer : answer);
  }
  return next.value;
}

/** Runs `steps` as the transaction `tx` allows: at once on SQLite, awaited on PostgreSQL. */
export function drive<R>(tx: IngestTx, steps: Steps<R>): R | Promise<R> {
  return tx.engine === 'sqlite' ? runSync(steps) : runAsync(steps);
}

/** What a slice's steps call: the engine's writer, on the transaction `tx` its hooks are handed. */
export type SliceCtx = { tx: IngestTx; writer: IngestWriter | Async<IngestWriter>; hooks: readonly IngestHook[] };

/**
 * One slice: its rows, what follows from what they answered (ingest-slice.ts), the derived rows,
 * every hook, and `within` when the slice is the transaction's last.
 */
export function* sliceSteps(
  c: SliceCtx,
  records: readonly NumberedRecord[],
  now: number,
  demo: boolean,
  first: boolean,
  within: WriteOptions['within'],
): Steps<SliceResult> {
  const settled = settleSlice(records, yield* call(c.writer.rows(sliceRows(records, now, demo))), now);
  yield* call(c.writer.derived(settled.derived));
  const batch: IngestBatch = { trades: settled.trades, touchedTokens: settled.touched, now, first };
  for (const hook of c.hooks) yield* call(hook(batch, c.tx), 'an ingest hook');
  if (within !== undefined) yield* call(within(c.tx), 'a write');
  return settled.result;
}

/** What a retraction's steps call: the engine's writer and retractor, on `tx`. */
export type RetractCtx = {
  tx: IngestTx;
  writer: IngestWriter | Async<IngestWriter>;
  retractor: SyncRetractor | EngineRetractor;
  hooks: readonly RetractHook[];
};

/** What a retraction did, for its answer and the change notice after the commit. */
export type RetractDone = { removed: number; touched: Set<number>; all: boolean; tokens: string[] };

/**
 * A retraction (docs/indexer.md, Reorgs): removes what `r` names, writes `records` back, settles
 * the touched tokens, runs the retract hooks and `within`, and reads the touched tokens' addresses.
 */
export function* retractSteps(
  c: RetractCtx,
  r: Retraction,
  records: readonly NumberedRecord[],
  now: number,
  within: RetractOptions['within'],
): Steps<RetractDone> {
  const removal = yield* call(c.retractor.remove(r, now));
  const touched = new Set(removal.touched);
  // A deleted market changes every token that names it, as a new one does at ingest.
  let all = removal.deletedMarkets > 0;
  if (records.length > 0) {
    const settled = settleSlice(records, yield* call(c.writer.rows(sliceRows(records, now, false))), now);
    yield* call(c.writer.derived(settled.derived));
    for (const id of settled.touched) touched.add(id);
    all ||= settled.result.change === 'all';
  }
  yield* call(c.retractor.settle(touched, now));
  const batch: RetractBatch = { trades: removal.trades, touchedTokens: touched, deletedTokens: removal.deletedTokens, now };
  for (const hook of c.hooks) yield* call(hook(batch, c.tx), 'a retract hook');
  if (within !== undefined) yield* call(within(c.tx), 'a retraction');
  // Deleted tokens are gone from the table by now: their addresses come from the removal.
  const tokens = [...new Set([...removal.deletedTokens, ...(yield* call(c.retractor.addresses(touched)))])].sort();
  return { removed: removal.trades.length, touched, all, tokens };
}
