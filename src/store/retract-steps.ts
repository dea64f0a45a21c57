/**
 * The retraction's statements, engine-neutral (docs/indexer.md, Reorgs: what a retraction
 * removes): one generator yields every statement in order and reads what each answered, so the
 * SQLite store runs it synchronously inside its transaction (src/store/sqlite/retract-repo.ts) and the
 * PostgreSQL store awaits each on the transaction's client (src/store/pg/retract-repo.ts). The SQL
 * is written once, with @named parameters, in the dialect both engines share.
 *
 * Removed trades are logged (removal_log) and deleted; then every derived row that held them is
 * recomputed from the trades that remain, bucket by bucket (src/domain/retraction.ts): the finest
 * candle width from the trades, each wider one folded from the width below it (their open and
 * close keys make that exact), the market rollups alike, each wallet's and market's last trade,
 * each token's last trade. Markets and tokens first seen in the orphaned blocks go whole.
 */
import { ROLLUP_SECONDS } from '../domain/resolution.js';
import { finerWidth, MARKET_ROLLUP_WIDTHS, retractPlan } from '../domain/retraction.js';
import type { Removal, RemovedTrade, Retraction } from './port/retract.js';

/** One statement: `rows` when its rows are wanted, else the number of rows it changed. */
export type Step = { sql: string; params: Record<string, unknown>; rows?: true };
export type StepResult = Record<string, unknown>[] | number;

export type { Removal } from './port/retract.js';

/** Removal log entries older than this are pruned (the stream reads entries of the last seconds). */
export const REMOVAL_LOG_KEEP_SECONDS = 86_400;

const TRADE = `SELECT t.id, t.token_id AS "tokenId", k.address AS token, t.market, t.signature, t.idx AS "index", t.block_time AS "blockTime",
  t.wallet, t.is_buy AS "isBuy", t.volume_usd AS "volumeUsd" FROM trades t JOIN tokens k ON k.id = t.token_id`;
const TRADE_BY_KEY = `${TRADE} WHERE t.signature = @signature AND t.idx = @idx`;
const TRADES_OF_TOKEN = `${TRADE} WHERE t.token_id = @token`;
const LOG = `INSERT INTO removal_log (trade_id, token_id, signature, idx, block_time, wallet, is_buy, volume_usd, removed_at)
  VALUES (@id, @token, @signature, @idx, @blockTime, @wallet, @isBuy, @volumeUsd, @now)`;
const PRUNE_LOG = 'DELETE FROM removal_log WHERE removed_at < @before';
const DELETE_TRADE = 'DELETE FROM trades WHERE id = @id';

// One statement for all the trades on an engine that takes arrays (PostgreSQL): a round trip per
// trade costs more there than the statement itself.
const TRADES_BY_KEYS = `${TRADE} JOIN unnest(@signatures::text[], @idxs::bigint[]) AS u (signature, idx) ON t.signature = u.signature AND t.idx = u.idx`;
const LOG_ALL = `INSERT INTO removal_log (trade_id, token_id, signature, idx, block_time, wallet, is_buy, volume_usd, removed_at)
  SELECT t.id, t.token_id, t.signature, t.idx, t.block_time, t.wallet, t.is_buy, t.volume_usd, @now
  FROM trades t JOIN unnest(@ids::bigint[]) WITH ORDINALITY AS u (id, n) ON t.id = u.id ORDER BY u.n`;
const DELETE_TRADES = 'DELETE FROM trades WHERE id = ANY(@ids::bigint[])';
const DELETE_WALLETS_LAST = `DELETE FROM wallet_last w USING unnest(@tokens::bigint[], @wallets::text[]) AS u (token_id, wallet)
  WHERE w.token_id = u.token_id AND w.wallet = u.wallet`;
const WALLETS_LAST = `INSERT INTO wallet_last (token_id, wallet, last_time)
  SELECT u.token_id, u.wallet, m.last FROM unnest(@tokens::bigint[], @wallets::text[]) AS u (token_id, wallet)
  CROSS JOIN LATERAL (SELECT max(t.block_time) AS last FROM trades t WHERE t.token_id = u.token_id AND t.wallet = u.wallet) m
  WHERE m.last IS NOT NULL`;

const DELETE_CANDLE = 'DELETE FROM candles WHERE token_id = @token AND res = @res AND t = @t';
const CANDLE_FROM_TRADES = `
  WITH src AS (SELECT id, block_time, price_usd, volume_usd, is_buy FROM trades WHERE token_id = @token AND block_time >= @t AND block_time < @end),
  f AS (SELECT price_usd AS p, block_time AS bt, id FROM src ORDER BY block_time, id LIMIT 1),
  z AS (SELECT price_usd AS p, block_time AS bt, id FROM src ORDER BY block_time DESC, id DESC LIMIT 1)
  INSERT INTO candles (token_id, res, t, o, h, l, c, v, vb, n, nb, o_time, o_id, c_time, c_id)
  SELECT CAST(@token AS bigint), CAST(@res AS bigint), CAST(@t AS bigint), f.p, a.h, a.l, z.p, a.v, a.vb, a.n, a.nb, f.bt, f.id, z.bt, z.id
  FROM (SELECT max(price_usd) AS h, min(price_usd) AS l, sum(volume_usd) AS v,
               sum(CASE WHEN is_buy = 1 THEN volume_usd ELSE 0.0 END) AS vb, count(*) AS n, sum(is_buy) AS nb FROM src) a, f, z`;
const CANDLE_FROM_ROLLUPS = `
  WITH src AS (SELECT o, h, l, c, v, vb, n, nb, o_time, o_id, c_time, c_id FROM candles WHERE token_id = @token AND res = @src AND t >= @t AND t < @end),
  f AS (SELECT o, o_time, o_id FROM src ORDER BY o_time, o_id LIMIT 1),
  z AS (SELECT c, c_time, c_id FROM src ORDER BY c_time DESC, c_id DESC LIMIT 1)
  INSERT INTO candles (token_id, res, t, o, h, l, c, v, vb, n, nb, o_time, o_id, c_time, c_id)
  SELECT CAST(@token AS bigint), CAST(@res AS bigint), CAST(@t AS bigint), f.o, a.h, a.l, z.c, a.v, a.vb, a.n, a.nb, f.o_time, f.o_id, z.c_time, z.c_id
  FROM (SELECT max(h) AS h, min(l) AS l, sum(v) AS v, sum(vb) AS vb, sum(n) AS n, sum(nb) AS nb FROM src) a, f, z`;

const MARKET_KEY = 'SELECT id FROM market_keys WHERE address = @market';
const DELETE_MARKET_CANDLE = 'DELETE FROM market_candles WHERE token_id = @token AND market_id = @key AND res = @res AND t = @t';
const MARKET_CANDLE_FROM_TRADES = `
  WITH src AS (SELECT id, block_time, price_usd, volume_usd, quote_amount, CASE WHEN amount > 0 THEN quote_amount / amount ELSE 0.0 END AS q
               FROM trades WHERE token_id = @token AND block_time >= @t AND block_time < @end AND market = @market),
  f AS (SELECT price_usd AS p, q, block_time AS bt, id FROM src ORDER BY block_time, id LIMIT 1),
  z AS (SELECT price_usd AS p, q, block_time AS bt, id FROM src ORDER BY block_time DESC, id DESC LIMIT 1)
  INSERT INTO market_candles (token_id, market_id, res, t, o, h, l, c, v, qo, qh, ql, qc, qv, n, o_time, o_id, c_time, c_id)
  SELECT CAST(@token AS bigint), CAST(@key AS bigint), CAST(@res AS bigint), CAST(@t AS bigint), f.p, a.h, a.l, z.p, a.v, f.q, a.qh, a.ql, z.q, a.qv, a.n,
         f.bt, f.id, z.bt, z.id
  FROM (SELECT max(price_usd) AS h, min(price_usd) AS l, sum(volume_usd) AS v, max(q) AS qh, min(q) AS ql, sum(quote_amount) AS qv, count(*) AS n
        FROM src) a, f, z`;
const MARKET_CANDLE_FROM_ROLLUPS = `
  WITH src AS (SELECT o, h, l, c, v, qo, qh, ql, qc, qv, n, o_time, o_id, c_time, c_id FROM market_candles
               WHERE token_id = @token AND market_id = @key AND res = @src AND t >= @t AND t < @end),
  f AS (SELECT o, qo, o_time, o_id FROM src ORDER BY o_time, o_id LIMIT 1),
  z AS (SELECT c, qc, c_time, c_id FROM src ORDER BY c_time DESC, c_id DESC LIMIT 1)
  INSERT INTO market_candles (token_id, market_id, res, t, o, h, l, c, v, qo, qh, ql, qc, qv, n, o_time, o_id, c_time, c_id)
  SELECT CAST(@token AS bigint), CAST(@key AS bigint), CAST(@res AS bigint), CAST(@t AS bigint), f.o, a.h, a.l, z.c, a.v, f.qo, a.qh, a.ql, z.qc, a.qv, a.n,
         f.o_time, f.o_id, z.c_time, z.c_id
  FROM (SELECT max(h) AS h, min(l) AS l, sum(v) AS v, max(qh) AS qh, min(ql) AS ql, sum(qv) AS qv, sum(n) AS n FROM src) a, f, z`;

const DELETE_MARKET_ROLLUP = 'DELETE FROM market_rollups WHERE res = @res AND t = @t AND token_id = @token AND market = @market';
const MARKET_ROLLUP_FROM_TRADES = `
  INSERT INTO market_rollups (token_id, res, t, market, v, n)
  SELECT CAST(@token AS bigint), CAST(@res AS bigint), CAST(@t AS bigint), CAST(@market AS text), sum(volume_usd), count(*)
  FROM trades WHERE token_id = @token AND block_time >= @t AND block_time < @end AND market = @market HAVING count(*) > 0`;
const MARKET_ROLLUP_FROM_ROLLUPS = `
  INSERT INTO market_rollups (token_id, res, t, market, v, n)
  SELECT CAST(@token AS bigint), CAST(@res AS bigint), CAST(@t AS bigint), CAST(@market AS text), sum(v), sum(n)
  FROM market_rollups WHERE res = @src AND t >= @t AND t < @end AND token_id = @token AND market = @market HAVING count(*) > 0`;

const DELETE_WALLET_LAST = 'DELETE FROM wallet_last WHERE token_id = @token AND wallet = @wallet';
const WALLET_LAST = `
  INSERT INTO wallet_last (token_id, wallet, last_time)
  SELECT CAST(@token AS bigint), CAST(@wallet AS text), max(block_time) FROM trades WHERE token_id = @token AND wallet = @wallet HAVING count(*) > 0`;
const DELETE_MARKET_LAST = 'DELETE FROM market_last WHERE token_id = @token AND market = @market';
// The market's newest one-second bucket, just recomputed, closes with its last trade in trade order.
const MARKET_LAST = `
  INSERT INTO market_last (token_id, market, block_time, trade_id, price_usd)
  SELECT CAST(@token AS bigint), CAST(@market AS text), c_time, c_id, c FROM market_candles
  WHERE token_id = @token AND market_id = @key AND res = 1 ORDER BY t DESC LIMIT 1`;
const TOKEN_LAST = `
  UPDATE tokens SET
    price_usd     = (SELECT price_usd FROM trades WHERE token_id = @token ORDER BY block_time DESC, id DESC LIMIT 1),
    last_trade_at = (SELECT block_time FROM trades WHERE token_id = @token ORDER BY block_time DESC, id DESC LIMIT 1),
    last_trade_id = (SELECT id FROM trades WHERE token_id = @token ORDER BY block_time DESC, id DESC LIMIT 1)
  WHERE id = @token`;
const TOUCH_TOKEN = 'UPDATE tokens SET updated_at = @now WHERE id = @token';

const TOKEN_ID = 'SELECT id FROM tokens WHERE address = @address';
const MARKET_TOKEN = 'SELECT token_id AS "tokenId" FROM markets WHERE address = @address';
const DELETE_MARKET = 'DELETE FROM markets WHERE address = @address';
const MARKETS_OF_TOKEN = 'SELECT address FROM markets WHERE token_id = @token';

/** Every statement a removal may run, for an engine that prepares them ahead (the first retraction then costs no more than the next). */
export function retractStatements(tokenTables: readonly string[], tokenExtra: readonly string[] = []): string[] {
  return [
    ...[TRADE_BY_KEY, TRADES_OF_TOKEN, LOG, PRUNE_LOG, DELETE_TRADE, DELETE_CANDLE, CANDLE_FROM_TRADES, CANDLE_FROM_ROLLUPS, MARKET_KEY],
    ...[DELETE_MARKET_CANDLE, MARKET_CANDLE_FROM_TRADES, MARKET_CANDLE_FROM_ROLLUPS, DELETE_MARKET_ROLLUP, MARKET_ROLLUP_FROM_TRADES],
    ...[MARKET_ROLLUP_FROM_ROLLUPS, DELETE_WALLET_LAST, WALLET_LAST, DELETE_MARKET_LAST, MARKET_LAST, TOKEN_LAST, TOUCH_TOKEN, TOKEN_ID],
    ...[MARKET_TOKEN, DELETE_MARKET, MARKETS_OF_TOKEN, DELETE_TOKEN, ...tokenExtra, ...tokenTables.map(deleteTokenRows)],
  ];
}

const DELETE_TOKEN = 'DELETE FROM tokens WHERE id = @token';
const deleteTokenRows = (table: string): string => `DELETE FROM "${table}" WHERE token_id = @token`;

type TradeRow = RemovedTrade & { isBuy: number; volumeUsd: number };

/**
 * The statements of one removal, in order. `tokenTables`: every table keyed by token_id but the
 * tokens themselves, the token change log and the removal log (their rows name tokens that were,
 * and readers follow them by seq); `tokenExtra`: further statements that drop a deleted token's
 * rows (@token), such as SQLite's search trigram table keyed by rowid.
 */
export function* retractSteps(
  r: Pick<Retraction, 'trades' | 'markets' | 'tokens'>,
  now: number,
  tokenTables: readonly string[],
  tokenExtra: readonly string[] = [],
  /** Whether the engine takes arrays (PostgreSQL): per-trade and per-wallet statements then go as one each. */
  arrays = false,
): Generator<Step, Removal, StepResult> {
  const asRows = (x: StepResult): TradeRow[] => (typeof x === 'number' ? [] : (x as TradeRow[]));
  const found = new Map<number, TradeRow>();
  const touched = new Set<number>();
  let deletedMarkets = 0;
  const add = (list: TradeRow[]) => {
    for (const t of list)
      found.set(Number(t.id), { ...t, id: Number(t.id), tokenId: Number(t.tokenId), index: Number(t.index), blockTime: Number(t.blockTime) });
  };

  // Tokens deleted whole take every trade of theirs with them (logged like the others).
  const deleted: { id: number; address: string }[] = [];
  for (const address of new Set(r.tokens)) {
    const [hit] = asRows(yield { sql: TOKEN_ID, params: { address }, rows: true }) as unknown as { id: number }[];
    if (hit === undefined) continue;
    deleted.push({ id: Number(hit.id), address });
    add(asRows(yield { sql: TRADES_OF_TOKEN, params: { token: Number(hit.id) }, rows: true }));
  }
  const deletedIds = new Set(deleted.map((d) => d.id));
  if (arrays && r.trades.length > 0) {
    add(asRows(yield { sql: TRADES_BY_KEYS, params: { signatures: r.trades.map((k) => k.signature), idxs: r.trades.map((k) => k.index) }, rows: true }));
  } else if (!arrays) {
    for (const k of r.trades) add(asRows(yield { sql: TRADE_BY_KEY, params: { signature: k.signature, idx: k.index }, rows: true }));
  }

  const trades = [...found.values()].sort((a, b) => a.id - b.id);
  for (const t of trades) touched.add(t.tokenId);
  if (arrays && trades.length > 0) {
    const ids = trades.map((t) => t.id);
    yield { sql: LOG_ALL, params: { ids, now } };
    yield { sql: DELETE_TRADES, params: { ids } };
  }
  for (const t of arrays ? [] : trades) {
    yield {
      sql: LOG,
      params: {
        id: t.id,
        token: t.tokenId,
        signature: t.signature,
        idx: t.index,
        blockTime: t.blockTime,
        wallet: t.wallet,
        isBuy: t.isBuy,
        volumeUsd: t.volumeUsd,
        now,
      },
    };
    yield { sql: DELETE_TRADE, params: { id: t.id } };
  }
  if (trades.length > 0) yield { sql: PRUNE_LOG, params: { before: now - REMOVAL_LOG_KEEP_SECONDS } };

  const plan = retractPlan(trades, deletedIds);
  const keys = new Map<string, number | null>();
  for (const { market } of plan.markets) {
    const [hit] = asRows(yield { sql: MARKET_KEY, params: { market }, rows: true }) as unknown as { id: number }[];
    keys.set(market, hit === undefined ? null : Number(hit.id));
  }
  for (const b of plan.candles) {
    const src = finerWidth(ROLLUP_SECONDS, b.res);
    const p = { token: b.tokenId, res: b.res, t: b.t, end: b.t + b.res };
    yield { sql: DELETE_CANDLE, params: { token: b.tokenId, res: b.res, t: b.t } };
    yield src === null ? { sql: CANDLE_FROM_TRADES, params: p } : { sql: CANDLE_FROM_ROLLUPS, params: { ...p, src } };
  }
  for (const b of plan.marketCandles) {
    const key = keys.get(b.market);
    if (key === null || key === undefined) continue;
    const src = finerWidth(ROLLUP_SECONDS, b.res);
    yield { sql: DELETE_MARKET_CANDLE, params: { token: b.tokenId, key, res: b.res, t: b.t } };
    const p = { token: b.tokenId, key, res: b.res, t: b.t, end: b.t + b.res };
    yield src === null ? { sql: MARKET_CANDLE_FROM_TRADES, params: { ...p, market: b.market } } : { sql: MARKET_CANDLE_FROM_ROLLUPS, params: { ...p, src } };
  }
  for (const b of plan.marketRollups) {
    const src = finerWidth(MARKET_ROLLUP_WIDTHS, b.res);
    yield { sql: DELETE_MARKET_ROLLUP, params: { token: b.tokenId, res: b.res, t: b.t, market: b.market } };
    const p = { token: b.tokenId, res: b.res, t: b.t, end: b.t + b.res, market: b.market };
    yield src === null ? { sql: MARKET_ROLLUP_FROM_TRADES, params: p } : { sql: MARKET_ROLLUP_FROM_ROLLUPS, params: { ...p, src } };
  }
  if (arrays && plan.wallets.length > 0) {
    const p = { tokens: plan.wallets.map((w) => w.tokenId), wallets: plan.wallets.map((w) => w.wallet) };
    yield { sql: DELETE_WALLETS_LAST, params: p };
    yield { sql: WALLETS_LAST, params: p };
  }
  for (const w of arrays ? [] : plan.wallets) {
    yield { sql: DELETE_WALLET_LAST, params: { token: w.tokenId, wallet: w.wallet } };
    yield { sql: WALLET_LAST, params: { token: w.tokenId, wallet: w.wallet } };
  }
  for (const m of plan.markets) {
    yield { sql: DELETE_MARKET_LAST, params: { token: m.tokenId, market: m.market } };
    const key = keys.get(m.market);
    if (key !== null && key !== undefined) yield { sql: MARKET_LAST, params: { token: m.tokenId, market: m.market, key } };
  }
  for (const token of plan.tokens) yield { sql: TOKEN_LAST, params: { token } };

  // Markets first seen in the orphaned blocks; their token's lists change.
  for (const address of new Set(r.markets)) {
    const [hit] = asRows(yield { sql: MARKET_TOKEN, params: { address }, rows: true }) as unknown as { tokenId: number }[];
    if (hit === undefined) continue;
    touched.add(Number(hit.tokenId));
    deletedMarkets += (yield { sql: DELETE_MARKET, params: { address } }) as number;
  }
  // Tokens first seen there: every row of theirs, found by the schema, then the token.
  for (const d of deleted) {
    touched.add(d.id);
    const markets = asRows(yield { sql: MARKETS_OF_TOKEN, params: { token: d.id }, rows: true }) as unknown as { address: string }[];
    for (const m of markets) deletedMarkets += (yield { sql: DELETE_MARKET, params: { address: m.address } }) as number;
    for (const sql of tokenExtra) yield { sql, params: { token: d.id } };
    for (const table of tokenTables) if (table !== 'markets') yield { sql: deleteTokenRows(table), params: { token: d.id } };
    yield { sql: DELETE_TOKEN, params: { token: d.id } };
  }
  for (const token of touched) if (!deletedIds.has(token)) yield { sql: TOUCH_TOKEN, params: { token, now } };

  const removed: RemovedTrade[] = trades.map((t) => ({
    id: t.id,
    tokenId: t.tokenId,
    token: t.token,
    market: t.market,
    signature: t.signature,
    index: t.index,
    blockTime: t.blockTime,
    wallet: t.wallet,
  }));
  return { trades: removed, touched, deletedTokens: deleted.map((d) => d.address), deletedMarkets };
}

/** Tables whose rows a deleted token takes with it, among `tables` (name and columns). */
export function tokenTablesOf(tables: readonly { name: string; columns: readonly string[] }[]): string[] {
  const keep = new Set(['tokens', 'token_changes', 'removal_log']);
  return tables
    .filter((t) => !keep.has(t.name) && t.columns.includes('token_id'))
    .map((t) => t.name)
    .sort();
}
