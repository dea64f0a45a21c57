/**
 * Ingest throughput on PostgreSQL (`npm run bench -- --store postgres`; docs/operations.md,
 * Benchmark and performance): the trades of bench/ingest-rate.ts through the real ingest path
 * (services.ingest on a PostgreSQL store: validation, trades, candle rollups, the read views,
 * every ingest hook, the hot token registered so events are written), batch after batch as the
 * CLI and `POST /v1/ingest` send them, against a bare multi-row INSERT of the same rows (1,000 a
 * statement over unnest(), the rows of a batch in one transaction) into the same trades table with
 * the same indexes and triggers. Each side gets a fresh database migrated to the same schema with
 * the same tokens, markets and holders; only the trades are timed. pg-copy-streams is not a
 * dependency, so the bare side is the multi-row insert the issue allows in place of `COPY`.
 */
import pg from 'pg';
import { openPgStore, type PgStore } from '../src/store/pg/pg-store.js';
import { createServices } from '../src/services/index.js';
import { demoTokens, type DemoOptions } from '../src/domain/demo-data.js';
import type { TradeRecord } from '../src/domain/records.js';
import { BENCH_PLAN_RPM, registerToken } from './provision.js';
import { splitRecords } from './ingest-rate.js';
import { withDatabase } from './pg-data.js';
import { quantile } from './load.js';

export type PgIngestRate = {
  trades: number;
  batch: number;
  realMs: number;
  bareMs: number;
  realPerSecond: number;
  barePerSecond: number;
  ratio: number;
  /** The real path's batches, each `batch` trades: median and 99th percentile in ms. */
  batchP50Ms: number;
  batchP99Ms: number;
  /** Events written by the real path (the hot token is registered). */
  events: number;
  registered: boolean;
  /** What the bare side was. */
  bare: 'multi-row insert';
};

/** Rows a bare statement inserts. */
export const BARE_ROWS_PER_STATEMENT = 1000;

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function admin<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database holding the reference records, with the services on it; dropped by `drop`. */
async function freshDatabase(serverUrl: string, label: string, opts: DemoOptions, set: ReturnType<typeof splitRecords>) {
  const name = `bench_ingest_${label}_${process.pid}`;
  await admin(serverUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${ident(name)}`);
  });
  const store = await openPgStore(withDatabase(serverUrl, name), { instanceId: `bench-ingest-${label}` });
  const services = createServices({ store, clock: { now: () => opts.until * 1000 } });
  await services.ingest.write(set.reference.map((record, i) => ({ line: i + 1, record })));
  const drop = async () => {
    await store.close();
    await admin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`));
  };
  return { store, services, drop };
}

/** Real path: services.ingest.ingest (validate, then write) per batch, each batch timed. */
async function realIngest(serverUrl: string, opts: DemoOptions, set: ReturnType<typeof splitRecords>, batch: number) {
  const db = await freshDatabase(serverUrl, 'real', opts, set);
  try {
    const { store, services } = db;
    const tenant = await services.accounts.createTenant({ name: 'bench', plan: 'enterprise' });
    await store.pool.query("UPDATE plans SET requests_per_minute = $1 WHERE name = 'enterprise'", [BENCH_PLAN_RPM]);
    const registered = await registerToken(services, tenant.id, demoTokens(opts)[0]!.address);
    const batches: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < set.trades.length; i += batch) {
      const values = set.trades.slice(i, i + batch).map((value, k) => ({ line: k + 1, value }));
      const b0 = performance.now();
      await services.ingest.ingest(values);
      batches.push(performance.now() - b0);
    }
    const ms = performance.now() - t0;
    const events = (await store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0]!.n;
    const stored = (await store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM trades')).rows[0]!.n;
    return { ms, events, registered, batches, stored };
  } finally {
    await db.drop();
  }
}

/** The trades of `rows` as unnest() columns, tokens by their ids. */
function columns(rows: readonly TradeRecord[], ids: ReadonlyMap<string, number>): unknown[][] {
  const col = <V>(f: (r: TradeRecord) => V): V[] => rows.map(f);
  return [
    col((r) => ids.get(r.token)),
    col((r) => r.blockTime),
    col((r) => r.signature),
    col((r) => r.index),
    col((r) => (r.side === 'buy' ? 1 : 0)),
    col((r) => r.priceUsd),
    col((r) => r.amount),
    col((r) => r.quoteAmount),
    col((r) => r.volumeUsd),
    col((r) => r.wallet),
    col((r) => r.market),
  ];
}

/** Bare: `batch` rows a transaction, BARE_ROWS_PER_STATEMENT rows a multi-row INSERT, nothing else. */
async function bareInsert(serverUrl: string, opts: DemoOptions, set: ReturnType<typeof splitRecords>, batch: number) {
  const db = await freshDatabase(serverUrl, 'bare', opts, set);
  try {
    const client = await (db.store as PgStore).pool.connect();
    try {
      const ids = new Map<string, number>();
      for (const r of (await client.query<{ address: string; id: number }>('SELECT address, id FROM tokens')).rows) ids.set(r.address, r.id);
      const insert = `INSERT INTO trades (token_id, block_time, signature, idx, is_buy, price_usd, amount, quote_amount, volume_usd, wallet, market)
        SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::text[], $11::text[])`;
      const t0 = performance.now();
      for (let i = 0; i < set.trades.length; i += batch) {
        const rows = set.trades.slice(i, i + batch);
        await client.query('BEGIN');
        for (let k = 0; k < rows.length; k += BARE_ROWS_PER_STATEMENT) await client.query(insert, columns(rows.slice(k, k + BARE_ROWS_PER_STATEMENT), ids));
        await client.query('COMMIT');
      }
      const ms = performance.now() - t0;
      const stored = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM trades')).rows[0]!.n;
      return { ms, stored };
    } finally {
      client.release();
    }
  } finally {
    await db.drop();
  }
}

/**
 * Measures both sides on the same rows on the server `serverUrl` names (databases of their own,
 * dropped after): the bare side first, then the real one, as bench/ingest-rate.ts does on SQLite.
 */
export async function measurePgIngest(serverUrl: string, opts: DemoOptions, batch: number): Promise<PgIngestRate> {
  const set = splitRecords(opts);
  const bare = await bareInsert(serverUrl, opts, set, batch);
  const real = await realIngest(serverUrl, opts, set, batch);
  const trades = set.trades.length;
  if (bare.stored !== real.stored) throw new Error(`the two sides stored ${bare.stored} and ${real.stored} trades of the same ${trades}`);
  const realPerSecond = (trades / real.ms) * 1000;
  const barePerSecond = (trades / bare.ms) * 1000;
  const sorted = [...real.batches].sort((a, b) => a - b);
  return {
    trades,
    batch,
    realMs: real.ms,
    bareMs: bare.ms,
    realPerSecond,
    barePerSecond,
    ratio: realPerSecond / barePerSecond,
    batchP50Ms: quantile(sorted, 0.5),
    batchP99Ms: quantile(sorted, 0.99),
    events: real.events,
    registered: real.registered,
    bare: 'multi-row insert',
  };
}
