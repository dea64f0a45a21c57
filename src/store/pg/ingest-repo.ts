/**
 * The ingest writer on PostgreSQL: the twin of createSqliteIngestWriter() in
 * src/store/sqlite/ingest-repo.ts (the same rows in every table for the same slices), built on the
 * client of the ingest's inWriteOrder() transaction (src/store/pg/write-order.ts), so record
 * numbers are taken and committed in order. A slice costs a fixed number of round trips, not one
 * per record: each kind is one or two multi-row statements over `unnest()` of its columns.
 *
 * Record numbers match SQLite's: an upsert's ON CONFLICT still draws a number from the identity
 * on PostgreSQL, so tokens, markets, trades and market keys are written as an UPDATE of the rows
 * that exist and an INSERT of the others, in first-seen order; trades already stored (or twice in
 * the slice) are left out before the insert, so duplicates use up no number either. Rows twice in
 * a slice are folded to what record order leaves (the last values, at the first one's place),
 * because one statement may not change a row twice.
 */
import type pg from 'pg';
import type { Async } from '../port/async.js';
import type { AsyncIngestEngine, IngestWriter, MarketBefore, SliceDerived, SliceWritten } from '../port/ingest.js';
import type { MarketRecord, TokenRecord, TradeRecord } from '../../domain/records.js';
import { rows } from './pg-repo.js';
import { inWriteOrder } from './write-order.js';
import { candlesPart } from './candles-repo.js';
import { marketCandlesParts } from './market-candles-repo.js';
import type { Part } from './combined.js';
import { carrying, defer, deferringClient, flush } from './deferred-writes.js';
import { pgRetractor } from './retract-repo.js';
import { clientOf } from './ingest-tx.js';

export type PgIngestWriter = Async<IngestWriter>;

/** The last record for each key, kept at the place of the first. */
function lastByKey<T>(list: readonly T[], key: (r: T) => string): Map<string, T> {
  const out = new Map<string, T>();
  for (const r of list) {
    // A Map keeps a key where it was first set.
    out.set(key(r), r);
  }
  return out;
}

/** Columns of `list` as arrays, for unnest(). */
const col = <T, V>(list: readonly T[], f: (r: T) => V): V[] => list.map(f);

export function createPgIngestWriter(client: pg.ClientBase): PgIngestWriter {
  async function writeTokens(list: readonly TokenRecord[], now: number, demo: number): Promise<void> {
    if (list.length === 0) return;
    const params = [
      col(list, (r) => r.address),
      col(list, (r) => r.symbol),
      col(list, (r) => r.name),
      col(list, (r) => r.decimals),
      col(list, (r) => r.totalSupply),
      col(list, (r) => r.circulatingSupply),
      col(list, (r) => r.createdAt),
      col(list, (r) => r.logoUri),
      now,
      demo,
    ];
    const src = `unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::bigint[], $8::text[])
      WITH ORDINALITY AS u (address, symbol, name, decimals, total_supply, circulating_supply, created_at, logo_uri, n)`;
    await client.query(
      `UPDATE tokens t SET symbol = u.symbol, name = u.name, decimals = u.decimals, total_supply = u.total_supply,
         circulating_supply = u.circulating_supply, created_at = u.created_at, logo_uri = u.logo_uri, updated_at = $9, is_demo = $10
       FROM ${src} WHERE t.address = u.address`,
      params,
    );
    await client.query(
      `INSERT INTO tokens (address, symbol, name, decimals, total_supply, circulating_supply, created_at, logo_uri, updated_at, is_demo)
       SELECT u.address, u.symbol, u.name, u.decimals, u.total_supply, u.circulating_supply, u.created_at, u.logo_uri, $9, $10
       FROM ${src} WHERE NOT EXISTS (SELECT 1 FROM tokens t WHERE t.address = u.address) ORDER BY u.n`,
      params,
    );
  }

  async function writeMarkets(list: readonly MarketRecord[], idOf: (a: string) => number): Promise<void> {
    if (list.length === 0) return;
    const params = [
      col(list, (r) => r.address),
      col(list, (r) => idOf(r.token)),
      col(list, (r) => r.quoteAddress),
      col(list, (r) => r.quoteSymbol),
      col(list, (r) => r.dex),
      col(list, (r) => r.liquidityUsd),
      col(list, (r) => r.createdAt),
    ];
    const src = `unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::bigint[])
      WITH ORDINALITY AS u (address, token_id, quote_address, quote_symbol, dex, liquidity_usd, created_at, n)`;
    await client.query(
      `UPDATE markets m SET token_id = u.token_id, quote_address = u.quote_address, quote_symbol = u.quote_symbol, dex = u.dex,
         liquidity_usd = u.liquidity_usd, created_at = u.created_at
       FROM ${src} WHERE m.address = u.address`,
      params,
    );
    await client.query(
      `INSERT INTO markets (address, token_id, quote_address, quote_symbol, dex, liquidity_usd, created_at)
       SELECT u.address, u.token_id, u.quote_address, u.quote_symbol, u.dex, u.liquidity_usd, u.created_at
       FROM ${src} WHERE NOT EXISTS (SELECT 1 FROM markets m WHERE m.address = u.address) ORDER BY u.n`,
      params,
    );
  }

  return {
    async rows(slice): Promise<SliceWritten> {
      await writeTokens([...lastByKey(slice.tokens, (r) => r.address).values()], slice.now, slice.demo ? 1 : 0);

      const named = new Set<string>();
      for (const r of slice.tokens) named.add(r.address);
      for (const r of slice.markets) named.add(r.token);
      for (const r of slice.holders) named.add(r.token);
      for (const r of slice.trades) named.add(r.token);
      const ids = new Map<string, number>();
      const idOf = (address: string): number => {
        const id = ids.get(address);
        if (id === undefined) throw new Error(`token ${address} vanished during ingest`);
        return id;
      };
      // A slice of trades alone (a live post, most of a backfill) reads its tokens' ids and inserts
      // its trades in one statement, with the writes still waiting from the slice before.
      if (slice.markets.length === 0 && slice.holders.length === 0 && slice.trades.length > 0) {
        const { first, list } = firstOfEach(slice.trades);
        const found = await carrying<{ kind: string; address: string; id: number; idx: number }>(
          client,
          [
            { name: 'ids', sql: 'SELECT address, id FROM tokens WHERE address = ANY($1::text[])', params: [[...named]] },
            { name: 'inserted', sql: tradesInsertSql('JOIN ids ON ids.address = u.token', 'ids.id', 'text'), params: tradeColumns(list, (r) => r.token) },
          ],
          `SELECT 'token' AS kind, address, id, 0 AS idx FROM ids UNION ALL SELECT 'trade', signature, id, idx FROM inserted`,
          [],
        );
        for (const r of found) if (r.kind === 'token') ids.set(r.address, r.id);
        // Every token of the slice must be stored (validation saw them): one missing is refused, as below.
        for (const address of named) idOf(address);
        const tradeIds: (number | null)[] = new Array<number | null>(slice.trades.length).fill(null);
        for (const r of found) if (r.kind === 'trade') tradeIds[first.get(`${r.address} ${r.idx}`)!] = r.id;
        return { ids, marketsBefore: [], tradeIds };
      }
      if (named.size > 0) {
        for (const r of await rows<{ address: string; id: number }>(client, 'SELECT address, id FROM tokens WHERE address = ANY($1::text[])', [[...named]])) {
          ids.set(r.address, r.id);
        }
      }

      // Each market record sees the row as the records before it left it.
      const marketsBefore: (MarketBefore | undefined)[] = [];
      if (slice.markets.length > 0) {
        const state = new Map<string, MarketBefore>();
        const stored = await rows<{ address: string; tokenId: number; dex: string }>(
          client,
          'SELECT address, token_id AS "tokenId", dex FROM markets WHERE address = ANY($1::text[])',
          [[...new Set(slice.markets.map((r) => r.address))]],
        );
        for (const r of stored) state.set(r.address, { tokenId: r.tokenId, dex: r.dex });
        for (const r of slice.markets) {
          marketsBefore.push(state.get(r.address));
          state.set(r.address, { tokenId: idOf(r.token), dex: r.dex });
        }
        // One record at a time, in record order: the udf_listing triggers keep the first spelling of
        // a dex per token, so folding or reordering market records could list another spelling than
        // SQLite does. Market records are few beside trades; a round trip each is the price.
        for (const r of slice.markets) await writeMarkets([r], idOf);
      }

      if (slice.holders.length > 0) {
        const last = [...lastByKey(slice.holders, (r) => `${idOf(r.token)} ${r.owner}`).values()];
        const gone = last.filter((r) => r.amount === 0);
        const kept = last.filter((r) => r.amount !== 0);
        if (gone.length > 0) {
          await client.query(
            `DELETE FROM holders h USING unnest($1::bigint[], $2::text[]) AS u (token_id, owner) WHERE h.token_id = u.token_id AND h.owner = u.owner`,
            [col(gone, (r) => idOf(r.token)), col(gone, (r) => r.owner)],
          );
        }
        if (kept.length > 0) {
          await client.query(
            `INSERT INTO holders (token_id, owner, amount, updated_at)
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::float8[], $4::bigint[])
             ON CONFLICT (token_id, owner) DO UPDATE SET amount = excluded.amount, updated_at = excluded.updated_at`,
            [col(kept, (r) => idOf(r.token)), col(kept, (r) => r.owner), col(kept, (r) => r.amount), col(kept, (r) => r.updatedAt)],
          );
        }
      }

      const tradeIds: (number | null)[] = new Array<number | null>(slice.trades.length).fill(null);
      if (slice.trades.length > 0) {
        const { first, list } = firstOfEach(slice.trades);
        const inserted = await rows<{ id: number; signature: string; idx: number }>(
          client,
          tradesInsertSql('', 'u.token', 'bigint'),
          tradeColumns(list, (r) => idOf(r.token)),
        );
        for (const r of inserted) tradeIds[first.get(`${r.signature} ${r.idx}`)!] = r.id;
      }
      return { ids, marketsBefore, tradeIds };
    },

    async derived(d) {
      // One statement, one round trip: the rollups, the markets' keys and rollups, and the touched
      // tokens' row (every token with a new last trade is touched: settleSlice adds it).
      const parts: Part[] = [];
      if (d.candles.length > 0) parts.push(candlesPart(d.candles));
      if (d.marketCandles.length > 0) parts.push(...marketCandlesParts(d.marketCandles));
      if (d.touched.size > 0) parts.push(touchedTokensPart(d));
      // Nothing the slice needs comes back: the writes wait for the transaction's next statement.
      await defer(client, parts);
    },
  };
}

/**
 * The touched tokens' row in one UPDATE: `updated_at` for each, and the price and last trade of
 * each whose newest new trade is newer (in trade order) than the stored last trade.
 */
function touchedTokensPart(d: SliceDerived): Part {
  const newer = '(l.id IS NOT NULL AND (t.last_trade_at IS NULL OR (t.last_trade_at, t.last_trade_id) < (l.block_time, l.id)))';
  return {
    sql: `UPDATE tokens t SET updated_at = $1,
         price_usd = CASE WHEN ${newer} THEN l.price_usd ELSE t.price_usd END,
         last_trade_at = CASE WHEN ${newer} THEN l.block_time ELSE t.last_trade_at END,
         last_trade_id = CASE WHEN ${newer} THEN l.id ELSE t.last_trade_id END
       FROM unnest($2::bigint[]) AS u (id)
         LEFT JOIN unnest($3::bigint[], $4::float8[], $5::bigint[], $6::bigint[]) AS l (token_id, price_usd, block_time, id) ON l.token_id = u.id
       WHERE t.id = u.id`,
    params: [d.now, [...d.touched], col(d.last, (t) => t.tokenId), col(d.last, (t) => t.priceUsd), col(d.last, (t) => t.blockTime), col(d.last, (t) => t.id)],
  };
}

/** The first record of each (signature, index), the one that may insert, as on SQLite: its place, and those records in order. */
function firstOfEach(trades: readonly TradeRecord[]): { first: Map<string, number>; list: TradeRecord[] } {
  const first = new Map<string, number>();
  trades.forEach((r, i) => {
    const k = `${r.signature} ${r.index}`;
    if (!first.has(k)) first.set(k, i);
  });
  return { first, list: [...first.values()].map((i) => trades[i]!) };
}

/**
 * The insert of the trades not stored yet, in record order, RETURNING id, signature, idx: the
 * token column of $1 is `tokenType` (ids, or addresses with `join` finding their ids as `tokenId`).
 */
function tradesInsertSql(join: string, tokenId: string, tokenType: 'bigint' | 'text'): string {
  return `INSERT INTO trades (token_id, block_time, signature, idx, is_buy, price_usd, amount, quote_amount, volume_usd, wallet, market)
           SELECT ${tokenId}, u.block_time, u.signature, u.idx, u.is_buy, u.price_usd, u.amount, u.quote_amount, u.volume_usd, u.wallet, u.market
           FROM unnest($1::${tokenType}[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::text[], $11::text[])
             WITH ORDINALITY AS u (token, block_time, signature, idx, is_buy, price_usd, amount, quote_amount, volume_usd, wallet, market, n)
           ${join}
           WHERE NOT EXISTS (SELECT 1 FROM trades t WHERE t.signature = u.signature AND t.idx = u.idx)
           ORDER BY u.n
           RETURNING id, signature, idx`;
}

/** The unnest() columns of tradesInsertSql(), the token column given by `token`. */
function tradeColumns(list: readonly TradeRecord[], token: (r: TradeRecord) => string | number): unknown[] {
  return [
    col(list, token),
    col(list, (r) => r.blockTime),
    col(list, (r) => r.signature),
    col(list, (r) => r.index),
    col(list, (r) => (r.side === 'buy' ? 1 : 0)),
    col(list, (r) => r.priceUsd),
    col(list, (r) => r.amount),
    col(list, (r) => r.quoteAmount),
    col(list, (r) => r.volumeUsd),
    col(list, (r) => r.wallet),
    col(list, (r) => r.market),
  ];
}

/** Records per slice on PostgreSQL: each slice is a fixed number of statements, so fewer, larger ones. */
export const PG_INGEST_SLICE = 1000;

/**
 * The ingest engine on a pool (src/services/ingest.ts awaits its calls): a batch is one
 * inWriteOrder() transaction, its writer and hooks on that transaction's client.
 */
export function createPgIngestEngine(pool: pg.Pool, slice = PG_INGEST_SLICE): AsyncIngestEngine {
  return {
    sync: false,
    slice,
    transaction: (fn) =>
      inWriteOrder(pool, async (raw) => {
        // Writes that answer nothing wait for the next statement (src/store/pg/deferred-writes.ts); the last go before the commit.
        const client = deferringClient(raw);
        const result = await fn({ engine: 'postgres', client }, createPgIngestWriter(client));
        await flush(client);
        return result;
      }),
    retractor: (tx) => pgRetractor(clientOf(tx)),
    async storedTokens(addresses) {
      if (addresses.length === 0) return new Set();
      const found = await rows<{ address: string }>(pool, 'SELECT address FROM tokens WHERE address = ANY($1::text[])', [addresses]);
      return new Set(found.map((r) => r.address));
    },
    async storedMarkets(addresses) {
      if (addresses.length === 0) return new Set();
      const found = await rows<{ address: string }>(pool, 'SELECT address FROM markets WHERE address = ANY($1::text[])', [addresses]);
      return new Set(found.map((r) => r.address));
    },
  };
}
