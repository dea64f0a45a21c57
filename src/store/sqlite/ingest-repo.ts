/**
 * The write side of the ingest boundary (docs/architecture.md, The ingest boundary) on SQLite: its
 * writer and its ingest engine. The ingest service (src/services/ingest.ts) keeps the rules: it validates,
 * splits a batch into slices and decides from what a slice wrote which trades are new, which
 * tokens changed and which candle deltas follow. An engine writer stores one slice's rows in one
 * call and its derived rows (candle rollups, last trades, touched tokens) in a second, so the
 * PostgreSQL writer (src/store/pg/ingest-repo.ts) can send each as a few multi-row statements.
 * This SQLite writer runs today's prepared statements row by row inside the caller's
 * transaction: a statement costs microseconds here, and a wrapper per row would be measurable.
 */
import { writeTransaction, type Db, type Store } from './db.js';
import type { IngestWriter, MarketBefore, SyncIngestEngine } from '../port/ingest.js';
import { createCandlesRepo } from './candles-repo.js';
import { createMarketCandlesRepo } from './market-candles-repo.js';
import { createSqliteRetractor } from './retract-repo.js';
import { slicedWrite, WRITE_SLICE } from './sliced-write.js';

// The writer's contract is the port's (src/store/port/ingest.ts); named here for its callers.
export type { IngestTx, IngestWriter, MarketBefore, SliceDerived, SliceRows, SliceWritten } from '../port/ingest.js';

export function createIngestRepo(db: Db) {
  const tokenId = db.prepare<[string], number>('SELECT id FROM tokens WHERE address = ?').pluck();
  const upsertToken = db
    .prepare(
      `
      INSERT INTO tokens (address, symbol, name, decimals, total_supply, circulating_supply, created_at, logo_uri, updated_at, is_demo)
      VALUES (@address, @symbol, @name, @decimals, @totalSupply, @circulatingSupply, @createdAt, @logoUri, @now, @isDemo)
      ON CONFLICT (address) DO UPDATE SET
        symbol = excluded.symbol, name = excluded.name, decimals = excluded.decimals,
        total_supply = excluded.total_supply, circulating_supply = excluded.circulating_supply,
        created_at = excluded.created_at, logo_uri = excluded.logo_uri, updated_at = excluded.updated_at,
        is_demo = excluded.is_demo
      RETURNING id`,
    )
    .pluck();
  const upsertMarket = db.prepare(`
      INSERT INTO markets (address, token_id, quote_address, quote_symbol, dex, liquidity_usd, created_at)
      VALUES (@address, @tokenId, @quoteAddress, @quoteSymbol, @dex, @liquidityUsd, @createdAt)
      ON CONFLICT (address) DO UPDATE SET
        token_id = excluded.token_id, quote_address = excluded.quote_address, quote_symbol = excluded.quote_symbol,
        dex = excluded.dex, liquidity_usd = excluded.liquidity_usd, created_at = excluded.created_at`);
  const marketBefore = db.prepare<[string], MarketBefore>('SELECT token_id AS tokenId, dex FROM markets WHERE address = ?');
  const marketId = db.prepare<[string], number>('SELECT id FROM markets WHERE address = ?').pluck();
  const tokenAddress = db.prepare<[number], string>('SELECT address FROM tokens WHERE id = ?').pluck();
  // Numbered by the writer, above every number ever handed out (migration 017): SQLite's own
  // max(id) + 1 would reuse the numbers of removed newest trades.
  const insertTrade = db.prepare(`
      INSERT INTO trades (id, token_id, block_time, signature, idx, is_buy, price_usd, amount, quote_amount, volume_usd, wallet, market)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (signature, idx) DO NOTHING`);
  const nextTradeId = db
    .prepare<[], number>('SELECT max(coalesce((SELECT max(id) FROM trades), 0), (SELECT id FROM trade_id_floor WHERE one = 1)) + 1')
    .pluck();
  const upsertHolder = db.prepare(`
      INSERT INTO holders (token_id, owner, amount, updated_at) VALUES (@tokenId, @owner, @amount, @updatedAt)
      ON CONFLICT (token_id, owner) DO UPDATE SET amount = excluded.amount, updated_at = excluded.updated_at`);
  const deleteHolder = db.prepare('DELETE FROM holders WHERE token_id = ? AND owner = ?');
  const touchToken = db.prepare('UPDATE tokens SET updated_at = ? WHERE id = ?');
  const setLastTrade = db.prepare(`
      UPDATE tokens SET price_usd = @priceUsd, last_trade_at = @blockTime, last_trade_id = @id
      WHERE id = @tokenId AND (last_trade_at IS NULL OR (last_trade_at, last_trade_id) < (@blockTime, @id))`);

  return {
    tokenId,
    marketId,
    tokenAddress,
    upsertToken,
    upsertMarket,
    marketBefore,
    insertTrade,
    nextTradeId,
    upsertHolder,
    deleteHolder,
    touchToken,
    setLastTrade,
  };
}

/** The SQLite writer: call it inside the store's write transaction (one connection, so no handle). */
export function createSqliteIngestWriter(db: Db): IngestWriter {
  const s = createIngestRepo(db);
  const candles = createCandlesRepo(db);
  const marketCandles = createMarketCandlesRepo(db);

  return {
    rows(slice) {
      const ids = new Map<string, number>();
      const idOf = (address: string): number => {
        let id = ids.get(address);
        if (id === undefined) {
          id = s.tokenId.get(address);
          if (id === undefined) throw new Error(`token ${address} vanished during ingest`);
          ids.set(address, id);
        }
        return id;
      };
      const isDemo = slice.demo ? 1 : 0;
      for (const r of slice.tokens) ids.set(r.address, s.upsertToken.get({ ...r, now: slice.now, isDemo }) as number);
      const marketsBefore: (MarketBefore | undefined)[] = [];
      for (const r of slice.markets) {
        marketsBefore.push(s.marketBefore.get(r.address));
        s.upsertMarket.run({ ...r, tokenId: idOf(r.token) });
      }
      for (const r of slice.holders) {
        const id = idOf(r.token);
        if (r.amount === 0) s.deleteHolder.run(id, r.owner);
        else s.upsertHolder.run({ tokenId: id, owner: r.owner, amount: r.amount, updatedAt: r.updatedAt });
      }
      const tradeIds: (number | null)[] = [];
      let next = slice.trades.length > 0 ? s.nextTradeId.get()! : 0;
      for (const r of slice.trades) {
        // Positional: binding a record by name costs several microseconds more per trade.
        const info = s.insertTrade.run(
          next,
          idOf(r.token),
          r.blockTime,
          r.signature,
          r.index,
          r.side === 'buy' ? 1 : 0,
          r.priceUsd,
          r.amount,
          r.quoteAmount,
          r.volumeUsd,
          r.wallet,
          r.market,
        );
        tradeIds.push(info.changes === 0 ? null : next++);
      }
      return { ids, marketsBefore, tradeIds };
    },

    derived(d) {
      if (d.candles.length > 0) candles.applyDeltas(d.candles);
      if (d.marketCandles.length > 0) marketCandles.applyDeltas(d.marketCandles);
      for (const t of d.last) s.setLastTrade.run({ priceUsd: t.priceUsd, blockTime: t.blockTime, id: t.id, tokenId: t.tokenId });
      for (const id of d.touched) s.touchToken.run(d.now, id);
    },
  };
}

/**
 * The ingest engine of a SQLite store (src/store/port/ingest.ts, SyncIngestEngine): every call
 * answers at once on the one connection, inside a write transaction the ingest opens through
 * `transaction` (or `sliced`, for a batch held open across turns of the event loop).
 */
export function createSqliteIngestEngine(store: Store): SyncIngestEngine {
  const { db } = store;
  const { tokenId, marketId, tokenAddress } = createIngestRepo(db);
  const retractor = createSqliteRetractor(db);
  return {
    sync: true,
    slice: WRITE_SLICE,
    tx: { engine: 'sqlite' },
    writer: createSqliteIngestWriter(db),
    retractor: {
      remove: (r, now) => retractor.remove(r, now),
      settle: (touched, now) => retractor.settle(touched, now),
      // Read inside the transaction: deleted tokens are gone from the table by then.
      addresses(ids) {
        const out: string[] = [];
        for (const id of ids) {
          const a = tokenAddress.get(id);
          if (a !== undefined) out.push(a);
        }
        return out;
      },
    },
    isToken: (address) => tokenId.get(address) !== undefined,
    isMarket: (address) => marketId.get(address) !== undefined,
    // Statement journals in memory for a batch (withMemoryJournal, docs/architecture.md, The store).
    transaction: (fn) => writeTransaction(db, fn, { memoryJournal: true }),
    retractTransaction: (fn) => writeTransaction(db, fn),
    sliced: (writeSlice, records, committed) => slicedWrite(store, writeSlice, records, committed),
    exclusive: (fn) => store.exclusive(fn),
    settled: () => store.settled(),
  };
}
