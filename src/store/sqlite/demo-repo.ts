/**
 * The statements behind the demo feed (what it needs to continue each demo token at its own
 * trade rate, size and quote currency), behind its pruning (the demo's trades older than its
 * window, with the rollups that hold only them) and behind `cli demo --remove` (every row that
 * belongs to a demo token, in one transaction). README, Demo data.
 */
import { writeTransaction, type Db } from './db.js';
import { ROLLUP_SECONDS } from '../../domain/resolution.js';
import { MARKET_ROLLUP_SECONDS } from './read-views-repo.js';
import type { DemoRemoval, DemoRepo, FeedMarket, FeedToken, RecentActivity } from '../port/operations.js';

// The interface and row types are the port's (src/store/port/operations.ts), named here too.
export type { DemoRemoval, DemoRepo, FeedMarket, FeedToken, RecentActivity } from '../port/operations.js';

const HOUR = 3600;
const DAY = 86400;
/** The widths of the candle rollups below a day; every stored width divides a day. */
const CANDLE_WIDTHS_BELOW_DAY = ROLLUP_SECONDS.filter((w) => w < DAY);

/**
 * The statements that prune the demo before `to` (`param` is the engine's placeholder), trades
 * first; shared with the PostgreSQL twin so both delete the same rows. Only run while the store
 * holds only demo data, so every market key is a demo token's.
 */
export function demoPruneStatements(demoIds: string, param: string): string[] {
  const keys = 'SELECT id FROM market_keys';
  return [
    `DELETE FROM trades WHERE token_id IN (${demoIds}) AND block_time < ${param}`,
    ...CANDLE_WIDTHS_BELOW_DAY.map((w) => `DELETE FROM candles WHERE token_id IN (${demoIds}) AND res = ${w} AND t < ${param}`),
    `DELETE FROM candles WHERE token_id IN (${demoIds}) AND res = ${DAY} AND t <= ${param} - ${DAY}`,
    ...CANDLE_WIDTHS_BELOW_DAY.map(
      (w) => `DELETE FROM market_candles WHERE token_id IN (${demoIds}) AND market_id IN (${keys}) AND res = ${w} AND t < ${param}`,
    ),
    `DELETE FROM market_candles WHERE token_id IN (${demoIds}) AND market_id IN (${keys}) AND res = ${DAY} AND t <= ${param} - ${DAY}`,
    ...MARKET_ROLLUP_SECONDS.map((w) => `DELETE FROM market_rollups WHERE token_id IN (${demoIds}) AND res = ${w} AND t < ${param}`),
    `DELETE FROM market_last WHERE token_id IN (${demoIds}) AND block_time < ${param}`,
    `DELETE FROM wallet_last WHERE token_id IN (${demoIds}) AND last_time < ${param}`,
  ];
}

export function createDemoRepo(db: Db): DemoRepo {
  const feedTokens = db.prepare<[], FeedToken>(
    'SELECT id, address, price_usd AS price, created_at AS createdAt, last_trade_at AS lastTradeAt FROM tokens WHERE is_demo = 1 AND price_usd IS NOT NULL ORDER BY id',
  );
  const onlyDemo = db.prepare<[], { n: number; real: number }>('SELECT count(*) AS n, coalesce(sum(is_demo = 0), 0) AS real FROM tokens');
  const markets = db.prepare<[number], FeedMarket>(
    'SELECT address, quote_symbol AS quoteSymbol, liquidity_usd AS liquidityUsd FROM markets WHERE token_id = ? ORDER BY liquidity_usd DESC, address',
  );
  const recent = db.prepare<[number, number], RecentActivity>(
    'SELECT count(*) AS trades, avg(volume_usd) AS avgVolumeUsd, min(block_time) AS firstTime FROM trades WHERE token_id = ? AND block_time >= ?',
  );
  // The USD price of SOL implied by the newest SOL-quoted trade of a token.
  const solPrice = db
    .prepare<[number], number>(
      `
    SELECT t.volume_usd / t.quote_amount FROM trades t JOIN markets m ON m.address = t.market
    WHERE t.token_id = ? AND m.quote_symbol = 'SOL' AND t.quote_amount > 0
    ORDER BY t.block_time DESC, t.id DESC LIMIT 1`,
    )
    .pluck();
  const holderCount = db.prepare<[number], number>('SELECT count(*) FROM holders WHERE token_id = ?').pluck();
  const topHolders = db.prepare<[number, number], string>('SELECT owner FROM holders WHERE token_id = ? ORDER BY amount DESC, owner LIMIT ?').pluck();
  const newestTraded = db.prepare<[], string>('SELECT address FROM tokens WHERE last_trade_at IS NOT NULL ORDER BY last_trade_at DESC, id LIMIT 1').pluck();
  const demoIds = db.prepare<[], number>('SELECT id FROM tokens WHERE is_demo = 1').pluck();
  const demoAddresses = 'SELECT address FROM tokens WHERE is_demo = 1';
  const demoIdList = 'SELECT id FROM tokens WHERE is_demo = 1';

  // Every table keyed by token id, found in the schema so that a table added by a later
  // migration is emptied of demo rows too. Tokens go last (the other tables refer to them).
  const tokenTables = (): string[] =>
    (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'tokens' ORDER BY name")
        .pluck()
        .all() as string[]
    ).filter((table) => (db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]).includes('token_id'));

  // Pruning before `to` (a whole hour): the trades, and every derived row that holds only trades
  // before it, so each view stays what a computation over the trades left gives. Candle and
  // market rollups are 1 s to 1 h wide (buckets before `to` hold nothing after it) and 1 d wide
  // (gone once the whole day is before `to`); a wallet's or market's last trade before `to` means
  // it has no trade left. Nothing else keeps a figure of old trades (windows read at most 24 h).
  const oldestDemoTrade = db.prepare<[], number | null>(`SELECT min(block_time) FROM trades WHERE token_id IN (${demoIdList})`).pluck();
  // One statement per stored width, so each deletes along its key's order (token, [market,] width,
  // time) from the oldest row up to `to` instead of scanning the token's rows of every width.
  const pruneStatements = demoPruneStatements(demoIdList, '@to').map((sql) => db.prepare<[{ to: number }]>(sql));
  const prune = writeTransaction(db, (to: number): number => {
    let trades = 0;
    for (const [i, st] of pruneStatements.entries()) {
      const n = st.run({ to }).changes;
      if (i === 0) trades = n;
    }
    return trades;
  });

  const remove = writeTransaction(db, (): DemoRemoval => {
    const ids = demoIds.all();
    if (ids.length === 0) return { tokens: 0, markets: 0, trades: 0, holders: 0, events: 0 };
    const counted: Record<string, number> = {};
    // Events name their token by address; their deliveries go with them (ON DELETE CASCADE).
    counted.events = db.prepare(`DELETE FROM events WHERE token IN (${demoAddresses})`).run().changes;
    for (const table of tokenTables()) {
      counted[table] = db.prepare(`DELETE FROM "${table}" WHERE token_id IN (${demoIdList})`).run().changes;
    }
    const tokens = db.prepare('DELETE FROM tokens WHERE is_demo = 1').run().changes;
    db.prepare("DELETE FROM meta WHERE key = 'demo'").run();
    // Trade ids above the newest remaining trade will be handed out again (INTEGER PRIMARY KEY is
    // max + 1), so the commit ends recorded past it would split future commits' trades wrongly.
    db.prepare('DELETE FROM trade_commits WHERE last_id > (SELECT coalesce(max(id), 0) FROM trades)').run();
    // The token change log (the loop above cleared their entries) names every removed token once
    // more, so the discovery boards of a running server drop them at their next refresh.
    const logChange = db.prepare('INSERT INTO token_changes (token_id) VALUES (?)');
    for (const id of ids) logChange.run(id);
    return { tokens, markets: counted.markets ?? 0, trades: counted.trades ?? 0, holders: counted.holders ?? 0, events: counted.events ?? 0 };
  });

  return {
    /** Demo tokens that have a price (so the feed can move it). */
    feedTokens: (): FeedToken[] => feedTokens.all(),
    /** True while the store holds tokens and every one of them is a demo token. */
    holdsOnlyDemo(): boolean {
      const row = onlyDemo.get()!;
      return row.n > 0 && row.real === 0;
    },
    /** How many tokens the store holds, and how many of them are real (not demo). */
    composition: (): { tokens: number; real: number } => {
      const row = onlyDemo.get()!;
      return { tokens: row.n, real: row.real };
    },
    markets: (tokenId: number): FeedMarket[] => markets.all(tokenId),
    /** Trades since `since` (unix seconds): how many, their average value, the first one's time. */
    recent: (tokenId: number, since: number): RecentActivity => recent.get(tokenId, since)!,
    /** SOL's USD price at the token's newest SOL-quoted trade, or undefined. */
    solPrice: (tokenId: number): number | undefined => solPrice.get(tokenId),
    holderCount: (tokenId: number): number => holderCount.get(tokenId) ?? 0,
    /** The owners of the token's `limit` largest holdings, largest first (ties by owner). */
    topHolders: (tokenId: number, limit: number): string[] => topHolders.all(tokenId, Math.max(limit, 0)),
    /** Deletes every demo token and every row that belongs to one; counts of what went. */
    removeDemo: (): DemoRemoval => remove(),
    /** The most recently traded token (demo or not): the one the start-up message links the embed to. */
    newestTraded: (): string | undefined => newestTraded.get(),
    /** Ids of the demo tokens. */
    demoTokenIds: (): number[] => demoIds.all(),
    /** The time of the oldest demo trade, or null. */
    oldestDemoTrade: (): number | null => oldestDemoTrade.get() ?? null,
    /**
     * Deletes the demo trades before `to` (a multiple of 3600; callers go up from the oldest trade
     * an hour at a time, so each call is a short transaction) and the rollups that held only them;
     * answers the trades deleted. A day's rollup goes with the call that reaches the day's end.
     */
    pruneDemoBefore: (to: number): number => {
      if (to % HOUR !== 0) throw new RangeError(`pruneDemoBefore needs a whole hour, got ${to}`);
      return prune(to);
    },
  };
}
