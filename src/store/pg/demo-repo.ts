/**
 * The demo feed's reads, its pruning and `cli demo --remove` on PostgreSQL: the twin of
 * src/store/sqlite/demo-repo.ts (same answers and the same rows removed, each a promise). Orders SQLite
 * gives by rowid are written out (tokens by id). The removal is one transaction in write order
 * (src/store/pg/write-order.ts: it numbers token change log entries), finds the tables keyed by
 * token id in the schema as SQLite does, and deletes in the same order, so the counts agree.
 */
import type pg from 'pg';
import type { Async } from '../port/async.js';
import { demoPruneStatements } from '../sqlite/demo-repo.js';
import type { DemoRemoval, DemoRepo, FeedMarket, FeedToken, RecentActivity } from '../port/repos.js';
import { pgTransaction, row, rows, type Queryable } from './pg-repo.js';
import { WRITE_ORDER_LOCK_KEY } from './write-order.js';

const DEMO_ADDRESSES = 'SELECT address FROM tokens WHERE is_demo = 1';
const DEMO_IDS = 'SELECT id FROM tokens WHERE is_demo = 1';

/** Every table of the schema with a token_id column but tokens, by name in byte order (as SQLite lists them). */
const TOKEN_TABLES = `SELECT c.table_name AS name FROM information_schema.columns c
  JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
  WHERE c.table_schema = current_schema() AND c.column_name = 'token_id' AND c.table_name <> 'tokens'
  ORDER BY c.table_name COLLATE "C"`;

async function removeDemo(client: pg.ClientBase): Promise<DemoRemoval> {
  const ids = (await rows<{ id: number }>(client, `${DEMO_IDS} ORDER BY id`)).map((r) => r.id);
  if (ids.length === 0) return { tokens: 0, markets: 0, trades: 0, holders: 0, events: 0 };
  const deleted = async (sql: string): Promise<number> => (await client.query(sql)).rowCount ?? 0;
  const counted: Record<string, number> = {};
  // Events name their token by address; their deliveries go with them (ON DELETE CASCADE).
  counted.events = await deleted(`DELETE FROM events WHERE token IN (${DEMO_ADDRESSES})`);
  for (const { name } of await rows<{ name: string }>(client, TOKEN_TABLES)) {
    counted[name] = await deleted(`DELETE FROM "${name}" WHERE token_id IN (${DEMO_IDS})`);
  }
  const tokens = await deleted('DELETE FROM tokens WHERE is_demo = 1');
  await client.query("DELETE FROM meta WHERE key = 'demo'");
  // Identities never hand a number out twice here, so the reason SQLite drops these rows does not
  // hold; they go all the same, so both engines keep the same rows (the stream reads them).
  await client.query('DELETE FROM trade_commits WHERE last_id > (SELECT coalesce(max(id), 0) FROM trades)');
  // Each removed token once more in the change log, in id order, so running boards drop them.
  await client.query('INSERT INTO token_changes (token_id) SELECT id FROM unnest($1::bigint[]) WITH ORDINALITY AS u (id, n) ORDER BY n', [ids]);
  return { tokens, markets: counted.markets ?? 0, trades: counted.trades ?? 0, holders: counted.holders ?? 0, events: counted.events ?? 0 };
}

const HOUR = 3600;

/** The twin of SQLite's pruning (src/store/sqlite/demo-repo.ts): the same statements, in the same order. */
const PRUNE_STATEMENTS = demoPruneStatements(DEMO_IDS, '$1::bigint');

async function pruneDemoBefore(client: pg.ClientBase, to: number): Promise<number> {
  let trades = 0;
  for (const [i, sql] of PRUNE_STATEMENTS.entries()) {
    const n = (await client.query(sql, [to])).rowCount ?? 0;
    if (i === 0) trades = n;
  }
  return trades;
}

export type PgDemoRepo = Async<DemoRepo>;

export function createPgDemoRepo(db: Queryable): PgDemoRepo {
  const composition = async () =>
    (await row<{ tokens: number; real: number }>(db, 'SELECT count(*) AS tokens, count(*) FILTER (WHERE is_demo = 0) AS real FROM tokens'))!;
  const count = async (sql: string, params: unknown[]): Promise<number> => (await row<{ n: number }>(db, sql, params))!.n;
  return {
    feedTokens: () =>
      rows<FeedToken>(
        db,
        `SELECT id, address, price_usd AS price, created_at AS "createdAt", last_trade_at AS "lastTradeAt" FROM tokens
         WHERE is_demo = 1 AND price_usd IS NOT NULL ORDER BY id`,
      ),
    async holdsOnlyDemo() {
      const c = await composition();
      return c.tokens > 0 && c.real === 0;
    },
    composition,
    markets: (tokenId) =>
      rows<FeedMarket>(
        db,
        'SELECT address, quote_symbol AS "quoteSymbol", liquidity_usd AS "liquidityUsd" FROM markets WHERE token_id = $1 ORDER BY liquidity_usd DESC, address',
        [tokenId],
      ),
    recent: async (tokenId, since) =>
      (await row<RecentActivity>(
        db,
        'SELECT count(*) AS trades, sqlite_avg(volume_usd ORDER BY block_time, id) AS "avgVolumeUsd", min(block_time) AS "firstTime" FROM trades WHERE token_id = $1 AND block_time >= $2',
        [tokenId, since],
      ))!,
    solPrice: async (tokenId) =>
      (
        await row<{ p: number }>(
          db,
          `SELECT t.volume_usd / t.quote_amount AS p FROM trades t JOIN markets m ON m.address = t.market
           WHERE t.token_id = $1 AND m.quote_symbol = 'SOL' AND t.quote_amount > 0
           ORDER BY t.block_time DESC, t.id DESC LIMIT 1`,
          [tokenId],
        )
      )?.p,
    holderCount: (tokenId) => count('SELECT count(*) AS n FROM holders WHERE token_id = $1', [tokenId]),
    topHolders: async (tokenId, limit) =>
      (
        await rows<{ owner: string }>(db, 'SELECT owner FROM holders WHERE token_id = $1 ORDER BY amount DESC, owner LIMIT $2', [tokenId, Math.max(limit, 0)])
      ).map((r) => r.owner),
    removeDemo: () => pgTransaction(db, WRITE_ORDER_LOCK_KEY, removeDemo),
    newestTraded: async () =>
      (await row<{ address: string }>(db, 'SELECT address FROM tokens WHERE last_trade_at IS NOT NULL ORDER BY last_trade_at DESC, id LIMIT 1'))?.address,
    demoTokenIds: async () => (await rows<{ id: number }>(db, `${DEMO_IDS} ORDER BY id`)).map((r) => r.id),
    oldestDemoTrade: async () => (await row<{ t: number | null }>(db, `SELECT min(block_time) AS t FROM trades WHERE token_id IN (${DEMO_IDS})`))?.t ?? null,
    // In write order: an ingest holds its wallets' and markets' rows and the trade count until it
    // commits, and a prune that took them the other way round would deadlock with it.
    pruneDemoBefore: async (to) => {
      if (to % HOUR !== 0) throw new RangeError(`pruneDemoBefore needs a whole hour, got ${to}`);
      return pgTransaction(db, WRITE_ORDER_LOCK_KEY, (client) => pruneDemoBefore(client, to));
    },
  };
}
