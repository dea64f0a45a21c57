/**
 * Ingest (docs/api.md, Data and ingest): the one write path for market data, used by the CLI, by
 * `POST /v1/ingest`, by the demo loader and by the demo feed.
 *
 * A batch is validated whole before anything is written; a batch with any bad record is refused
 * naming each bad line. Writes happen in transactions; derived views (token price, candle
 * rollups, and the hooks registered below) are updated in the same transaction as the trades.
 */
import { writeTransaction, type Store } from '../store/db.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { parseRecord, type IngestRecord, type TradeRecord } from '../domain/records.js';
import { rollupDeltas } from '../domain/candles.js';
import { createCandlesRepo } from '../store/candles-repo.js';
import { marketRollupDeltas } from '../domain/market-candles.js';
import { createIngestRepo } from '../store/ingest-repo.js';
import { createMarketCandlesRepo } from '../store/market-candles-repo.js';
import { validateChunked, writeInSlices, WRITE_SLICE, type SliceResult } from './ingest-batch.js';

export type IngestResult = { accepted: number; duplicates: number };
export type LineError = { line: number; error: string };
export type NumberedRecord = { line: number; record: IngestRecord };

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

/**
 * Runs inside the ingest transaction after a chunk's records are written. Must not await.
 * Hooks keep views that ingest must update atomically (events, per-wallet rollups, ...).
 */
export type IngestHook = (batch: {
  trades: readonly InsertedTrade[];
  touchedTokens: ReadonlySet<number>;
  now: number;
  /** Whether this is the transaction's first call: a sliced batch calls its hooks once per slice. */
  first: boolean;
}) => void;

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

export type Ingest = {
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
  writeSliced(records: readonly NumberedRecord[], opts?: { demo?: boolean }): Promise<IngestResult>;
  /** Writes already validated records in one transaction. */
  write(records: readonly NumberedRecord[], opts?: { demo?: boolean }): IngestResult;
  /** Validates every record, then writes all of them in one transaction, or throws IngestRejected. */
  ingest(values: readonly { line: number; value: unknown }[], opts?: { demo?: boolean }): IngestResult;
  /** Adds a hook called in the write transaction. */
  addHook(hook: IngestHook): void;
};

const MAX_ERRORS = 100;

export function createIngest(deps: { store: Store; clock: Clock; hooks?: IngestHook[] }): Ingest {
  const { db } = deps.store;
  const hooks: IngestHook[] = [...(deps.hooks ?? [])];
  const candles = createCandlesRepo(db);
  const marketCandles = createMarketCandlesRepo(db);

  const { tokenId, upsertToken, upsertMarket, marketBefore, insertTrade, upsertHolder, deleteHolder, touchToken, setLastTrade } = createIngestRepo(db);

  function validator(): Validator {
    const defined = new Set<string>();
    const known = new Map<string, boolean>();
    const errors: LineError[] = [];
    const exists = (address: string): boolean => {
      if (defined.has(address)) return true;
      let k = known.get(address);
      if (k === undefined) {
        k = tokenId.get(address) !== undefined;
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

  const writeTx = writeTransaction(db, (records: readonly NumberedRecord[], demo: boolean, first: boolean): SliceResult => {
    const now = nowSeconds(deps.clock);
    const ids = new Map<string, number>();
    const idOf = (address: string): number => {
      let id = ids.get(address);
      if (id === undefined) {
        id = tokenId.get(address);
        if (id === undefined) throw new Error(`token ${address} vanished during ingest`);
        ids.set(address, id);
      }
      return id;
    };
    const touched = new Set<number>();
    let dexChanged = false;
    const trades: InsertedTrade[] = [];
    let accepted = 0;
    let duplicates = 0;

    for (const { record: r } of records) {
      switch (r.type) {
        case 'token': {
          const id = upsertToken.get({ ...r, now, isDemo: demo ? 1 : 0 }) as number;
          ids.set(r.address, id);
          touched.add(id);
          accepted++;
          break;
        }
        case 'market': {
          const id = idOf(r.token);
          const before = marketBefore.get(r.address);
          // Trades of any token may name this market and show its dex: a new market or a new dex
          // changes them all. A market moved to another token changes the old token's lists too.
          if (before === undefined || before.dex !== r.dex) dexChanged = true;
          else if (before.tokenId !== id) touched.add(before.tokenId);
          upsertMarket.run({ ...r, tokenId: id });
          touched.add(id);
          accepted++;
          break;
        }
        case 'holder': {
          const id = idOf(r.token);
          if (r.amount === 0) deleteHolder.run(id, r.owner);
          else upsertHolder.run({ tokenId: id, owner: r.owner, amount: r.amount, updatedAt: r.updatedAt });
          touched.add(id);
          accepted++;
          break;
        }
        case 'trade': {
          const id = idOf(r.token);
          const inserted = insertTradeRow(id, r);
          if (inserted === null) {
            duplicates++;
          } else {
            trades.push(inserted);
            touched.add(id);
            accepted++;
          }
          break;
        }
      }
    }

    if (trades.length > 0) {
      candles.applyDeltas(rollupDeltas(trades));
      marketCandles.applyDeltas(marketRollupDeltas(trades));
      const newest = new Map<number, InsertedTrade>();
      for (const t of trades) {
        const cur = newest.get(t.tokenId);
        if (cur === undefined || t.blockTime > cur.blockTime || (t.blockTime === cur.blockTime && t.id > cur.id)) {
          newest.set(t.tokenId, t);
        }
      }
      for (const t of newest.values()) setLastTrade.run({ priceUsd: t.priceUsd, blockTime: t.blockTime, id: t.id, tokenId: t.tokenId });
    }
    for (const id of touched) touchToken.run(now, id);
    for (const hook of hooks) hook({ trades, touchedTokens: touched, now, first });
    return { accepted, duplicates, change: dexChanged ? 'all' : touched };
  });

  function insertTradeRow(tokenId: number, r: TradeRecord): InsertedTrade | null {
    const isBuy = r.side === 'buy';
    // Positional: binding a record by name costs several microseconds more per trade.
    const info = insertTrade.run(
      tokenId,
      r.blockTime,
      r.signature,
      r.index,
      isBuy ? 1 : 0,
      r.priceUsd,
      r.amount,
      r.quoteAmount,
      r.volumeUsd,
      r.wallet,
      r.market,
    );
    if (info.changes === 0) return null;
    // The new fields first: a spread followed by more fields made ingest about 8% slower (V8).
    return { id: Number(info.lastInsertRowid), tokenId, isBuy, ...r };
  }

  function write(records: readonly NumberedRecord[], opts: { demo?: boolean } = {}): IngestResult {
    const { accepted, duplicates, change } = writeTx(records, opts.demo === true, true);
    // Tell caches only after the commit, so no reader can cache a view of uncommitted data.
    if (change === 'all' || change.size > 0) deps.store.notifyChange({ tokens: change });
    return { accepted, duplicates };
  }

  return {
    validator,
    validate: (values) => validateChunked(validator(), values),
    write,
    writeSliced: (records, opts = {}) => {
      if (records.length <= WRITE_SLICE && deps.store.settled() === null) return Promise.resolve(write(records, opts));
      let slices = 0;
      return writeInSlices(deps.store, (slice) => writeTx(slice, opts.demo === true, slices++ === 0), records);
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
