/**
 * What the ingest comparison tests share: random ingest batches (fast-check) over a small world
 * of tokens, markets, wallets and signatures, so batches define new tokens, move and re-dex
 * markets, set and clear holders, backfill old trades and repeat stored ones; the ingest built
 * on each engine; and every table ingest writes, read ordered by its key.
 */
import fc from 'fast-check';
import type pg from 'pg';
import type { Store } from '../../src/store/sqlite/db.js';
import { createIngest } from '../../src/services/ingest.js';
import { viewHooks } from '../../src/services/ingest-hooks.js';
import { sqliteIngestViews } from '../../src/store/sqlite/ingest-views.js';
import { pgIngestViews } from '../../src/store/pg/ingest-views.js';
import { createPgIngestEngine } from '../../src/store/pg/ingest-repo.js';
import { createSqliteIngestEngine } from '../../src/store/sqlite/ingest-repo.js';
import { WRITE_SLICE } from '../../src/store/sqlite/sliced-write.js';

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** A valid base58 address numbered `n` under `prefix`. */
const addr = (prefix: string, n: number): string => (prefix + B58[n % 58]! + B58[Math.floor(n / 58) % 58]!).padEnd(32, '1');

export const TOKENS = [0, 1, 2, 3, 4, 5].map((n) => addr('Tok', n));
const MARKETS = [0, 1, 2, 3].map((n) => addr('Mkt', n));
const WALLETS = [0, 1, 2].map((n) => addr('Wxt', n));
const DEXES = ['raydium', 'orca', 'Orca'];
const T0 = 1_700_000_000;

/** Mostly the seeded tokens; now and then one a batch may define first (or not: then it is refused). */
const tokenRef = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...TOKENS.slice(0, 4)) }, { weight: 1, arbitrary: fc.constantFrom(...TOKENS.slice(4)) });
const seededRef = fc.constantFrom(...TOKENS.slice(0, 4));

const token = fc.record({
  type: fc.constant('token'),
  address: fc.oneof(fc.constantFrom(...TOKENS.slice(4)), fc.constantFrom(...TOKENS)),
  symbol: fc.constantFrom('AAA', 'bbb', 'Ωmega', 'ZZ'),
  name: fc.constantFrom('Alpha coin', 'beta', 'Ωmega Ünïcode', 'x'),
  decimals: fc.integer({ min: 0, max: 12 }),
  totalSupply: fc.option(fc.double({ min: 0, max: 1e12, noNaN: true }), { nil: null }),
  circulatingSupply: fc.option(fc.integer({ min: 0, max: 1e9 }), { nil: null }),
  createdAt: fc.integer({ min: T0 - 1000, max: T0 }),
  logoUri: fc.option(fc.constant('https://x.test/l.png'), { nil: null }),
});
const market = fc.record({
  type: fc.constant('market'),
  address: fc.constantFrom(...MARKETS),
  token: tokenRef,
  quoteAddress: fc.constant(addr('Quo', 0)),
  quoteSymbol: fc.constantFrom('SOL', 'USDC'),
  dex: fc.constantFrom(...DEXES),
  liquidityUsd: fc.constantFrom(0, 500, 25_000.5),
  createdAt: fc.integer({ min: T0 - 1000, max: T0 }),
});
const holder = fc.record({
  type: fc.constant('holder'),
  token: tokenRef,
  owner: fc.constantFrom(...WALLETS),
  amount: fc.constantFrom(0, 1, 2.5, 1e6),
  updatedAt: fc.integer({ min: T0 - 100, max: T0 }),
});
const trade = fc.record({
  type: fc.constant('trade'),
  token: tokenRef,
  market: fc.constantFrom(...MARKETS),
  // A small space of signatures: repeats within a batch and across batches are duplicates.
  signature: fc.integer({ min: 0, max: 60 }).map((n) => `sig${n}`),
  index: fc.integer({ min: 0, max: 2 }),
  // Mostly recent, some far back (backfill into old buckets, before the tokens' last trades).
  blockTime: fc.oneof(fc.integer({ min: T0 - 200, max: T0 + 200 }), fc.integer({ min: T0 - 90 * 86_400, max: T0 })),
  side: fc.constantFrom('buy', 'sell'),
  priceUsd: fc.double({ min: 1e-9, max: 1e6, noNaN: true }),
  amount: fc.double({ min: 0, max: 1e9, noNaN: true }),
  quoteAmount: fc.double({ min: 0, max: 1e9, noNaN: true }),
  volumeUsd: fc.double({ min: 0, max: 1e7, noNaN: true }),
  wallet: fc.constantFrom(...WALLETS),
});

/** Trades of the seeded tokens only: always valid after seedBatch(). */
export const validTrades = fc.array(
  fc.tuple(trade, seededRef).map(([t, token]) => ({ ...t, token })),
  { minLength: 1, maxLength: 40 },
);

/** One batch: mostly trades, some reference records; now and then longer than a slice. */
export const batch = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(
      fc.oneof({ weight: 1, arbitrary: token }, { weight: 1, arbitrary: market }, { weight: 1, arbitrary: holder }, { weight: 5, arbitrary: trade }),
      { maxLength: 40 },
    ),
  },
  { weight: 1, arbitrary: fc.array(trade, { minLength: WRITE_SLICE, maxLength: WRITE_SLICE + 60 }) },
);

/** The tokens every run starts with, so most batches are valid. */
export const seedBatch = (): unknown[] =>
  TOKENS.slice(0, 4).flatMap((address, i) => [
    { type: 'token', address, symbol: `S${i}`, name: `Seed ${i}`, decimals: 6, createdAt: T0 - 5000 },
    {
      type: 'market',
      address: MARKETS[i]!,
      token: address,
      quoteAddress: addr('Quo', 0),
      quoteSymbol: 'SOL',
      dex: DEXES[i % 2]!,
      liquidityUsd: 10,
      createdAt: T0 - 5000,
    },
  ]);

/** Every table ingest writes, with the order that lists it by key. */
export const INGEST_TABLES: Record<string, string> = {
  tokens: 'id',
  markets: 'id',
  trades: 'id',
  holders: 'token_id, owner',
  candles: 'token_id, res, t',
  market_keys: 'id',
  market_candles: 'token_id, market_id, res, t',
  wallet_last: 'token_id, wallet',
  market_rollups: 'token_id, res, t, market',
  market_last: 'token_id, market',
  token_changes: 'seq',
  token_search: 'token_id',
  token_search_grams: 'gram, token_id',
  trade_commits: 'last_id',
  events: 'id',
  webhook_deliveries: 'id',
  udf_listing: 'token_id, dex',
};

/** Every row of every ingest table of the SQLite store. */
export function sqliteTables(store: Store): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [t, key] of Object.entries(INGEST_TABLES)) out[t] = store.db.prepare(`SELECT * FROM ${t} ORDER BY ${key}`).all();
  return out;
}

/** The same, from PostgreSQL. */
export async function pgTables(pool: pg.Pool): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [t, key] of Object.entries(INGEST_TABLES)) out[t] = (await pool.query(`SELECT * FROM ${t} ORDER BY ${key}`)).rows;
  return out;
}

/** The fixed clock both sides share (ms), moved on by each batch. */
export type TestClock = { ms: number; now(): number };
export const testClock = (): TestClock => ({
  ms: (T0 + 300) * 1000,
  now() {
    return this.ms;
  },
});

/** Ingest on each engine, with every hook, at the same slice size. */
export function sqliteIngest(store: Store, clock: TestClock) {
  return createIngest({
    engine: createSqliteIngestEngine(store),
    clock,
    hooks: viewHooks(sqliteIngestViews(store.db), clock),
    onCommit: (c) => store.notifyChange(c),
  });
}
export function pgIngest(pool: pg.Pool, clock: TestClock) {
  return createIngest({ engine: createPgIngestEngine(pool, WRITE_SLICE), clock, hooks: viewHooks(pgIngestViews(), clock), onCommit: () => undefined });
}

/** A tenant subscribed to two tokens (one with a webhook), on both stores, so the events hook writes. */
export async function subscribe(store: Store, pool: pg.Pool): Promise<void> {
  const sql = [
    `INSERT INTO tenants (id, name, plan, created_at) VALUES ('ten_1', 'T', 'free', 1)`,
    `INSERT INTO subscriptions (id, tenant_id, address, webhook_url, created_at) VALUES ('sub_1', 'ten_1', '${TOKENS[0]}', 'https://hook.test/x', 1)`,
    `INSERT INTO subscriptions (id, tenant_id, address, webhook_url, created_at) VALUES ('sub_2', 'ten_1', '${TOKENS[1]}', NULL, 1)`,
  ];
  for (const s of sql) {
    store.db.exec(s);
    await pool.query(s);
  }
}
