/**
 * Ingest throughput: trades per second through the real ingest path (validation, trades, candle
 * rollups, the token's last price, every ingest hook, with the hot token registered so events
 * are written) against a bare better-sqlite3 insert loop of the same rows into the same trades
 * table with the same indexes. Each side gets a fresh store file with the same schema and the
 * same tokens, markets and holders; the trades arrive in time order, as from a live feed, in
 * transactions of the same size.
 */
import { rmSync } from 'node:fs';
import { openStore, writeTransaction, type Store } from '../src/store/sqlite/db.js';
import { createServices } from '../src/services/index.js';
import { demoRecords, demoTokens, type DemoOptions } from '../src/domain/demo-data.js';
import type { IngestRecord, TradeRecord } from '../src/domain/records.js';
import { provisionStore } from './provision.js';
import { bareTradeInsert } from './bare-trade.js';

export type IngestRate = {
  trades: number;
  batch: number;
  realMs: number;
  bareMs: number;
  realPerSecond: number;
  barePerSecond: number;
  ratio: number;
  /** Events written by the real path (0 when the events hook is not wired or nothing is registered). */
  events: number;
  registered: boolean;
};

/** The records of a set split into the reference data and the trades (in time order). */
export function splitRecords(opts: DemoOptions): { reference: IngestRecord[]; trades: TradeRecord[] } {
  const reference: IngestRecord[] = [];
  const trades: TradeRecord[] = [];
  for (const r of demoRecords(opts)) {
    if (r.type === 'trade') trades.push(r);
    else reference.push(r);
  }
  trades.sort((a, b) => a.blockTime - b.blockTime);
  return { reference, trades };
}

function freshStore(path: string): Store {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  return openStore(path);
}

const removeStore = (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
};

/** Real path: services.ingest.ingest (validate, then write) per batch. */
export async function realIngest(path: string, opts: DemoOptions, set: ReturnType<typeof splitRecords>, batch: number) {
  const store = freshStore(path);
  try {
    const services = createServices({ store, clock: { now: () => opts.until * 1000 } });
    services.ingest.write(set.reference.map((record, i) => ({ line: i + 1, record })));
    const { registered } = await provisionStore(store, services, demoTokens(opts)[0]!.address);
    const t0 = performance.now();
    for (let i = 0; i < set.trades.length; i += batch) {
      const values = set.trades.slice(i, i + batch).map((value, k) => ({ line: k + 1, value }));
      services.ingest.ingest(values);
    }
    const ms = performance.now() - t0;
    const hasEvents = store.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'events'").pluck().get() !== undefined;
    const events = hasEvents ? (store.db.prepare('SELECT count(*) FROM events').pluck().get() as number) : 0;
    return { ms, events, registered };
  } finally {
    store.close();
    removeStore(path);
  }
}

/** Bare loop: one prepared INSERT per row, `batch` rows per transaction (the ingest's kind of transaction), nothing else. */
export function bareInsert(path: string, set: ReturnType<typeof splitRecords>, batch: number): { ms: number; rows: number } {
  const store = freshStore(path);
  try {
    const { db } = store;
    // Same schema and reference rows as the real side; only the trades are timed.
    createServices({ store, clock: { now: () => 0 } }).ingest.write(set.reference.map((record, i) => ({ line: i + 1, record })));
    const ids = new Map<string, number>();
    for (const row of db.prepare('SELECT address, id FROM tokens').raw().all() as [string, number][]) ids.set(row[0], row[1]);
    const insert = bareTradeInsert(db);
    // The store's own transaction for a batch, statement journals in memory as the real path's
    // (docs/architecture.md, The store): the reference is the same store written the same way.
    const write = writeTransaction(
      db,
      (rows: TradeRecord[]) => {
        for (const r of rows) insert(r, ids.get(r.token));
      },
      { memoryJournal: true },
    );
    const t0 = performance.now();
    for (let i = 0; i < set.trades.length; i += batch) write(set.trades.slice(i, i + batch));
    const ms = performance.now() - t0;
    const rows = db.prepare('SELECT count(*) FROM trades').pluck().get() as number;
    return { ms, rows };
  } finally {
    store.close();
    removeStore(path);
  }
}

/** Measures both sides on the same rows; `dir` holds the temporary stores. */
export async function measureIngest(dir: string, opts: DemoOptions, batch: number): Promise<IngestRate> {
  const set = splitRecords(opts);
  const bare = bareInsert(`${dir}/ingest-bare.db`, set, batch);
  const real = await realIngest(`${dir}/ingest-real.db`, opts, set, batch);
  const trades = set.trades.length;
  const realPerSecond = (trades / real.ms) * 1000;
  const barePerSecond = (trades / bare.ms) * 1000;
  return {
    trades,
    batch,
    realMs: real.ms,
    bareMs: bare.ms,
    realPerSecond,
    barePerSecond,
    ratio: realPerSecond / barePerSecond,
    events: real.events,
    registered: real.registered,
  };
}
