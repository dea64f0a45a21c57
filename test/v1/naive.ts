/**
 * Naive reference computations over the raw trades table, for checking the /v1 reads that are
 * served from rollups and caches.
 */
import type { Store } from '../../src/store/sqlite/db.js';
import type { PgStore } from '../../src/store/pg/pg-store.js';
import { rawSql } from '../helpers/raw-sql.js';

export type RawTrade = {
  id: number;
  tokenId: number;
  bt: number;
  wallet: string;
  market: string;
  isBuy: number;
  price: number;
  vol: number;
};

/** The raw trades, aliases quoted so both engines keep their case. */
const RAW_TRADES = `SELECT id, token_id AS "tokenId", block_time AS bt, wallet, market, is_buy AS "isBuy", price_usd AS price, volume_usd AS vol
  FROM trades ORDER BY block_time, id`;

/** Every trade of the token (or of all tokens), in trade order. */
export function rawTrades(store: Store, tokenId?: number): RawTrade[] {
  const rows = store.db.prepare(RAW_TRADES).all() as RawTrade[];
  return tokenId === undefined ? rows : rows.filter((r) => r.tokenId === tokenId);
}

/**
 * The same on either engine (the helpers' store on STORE=postgres is a PostgreSQL database): the
 * raw trades read straight from the table, so the reference never goes through the repos it
 * checks. Await the helper's ingest first.
 */
export async function readRawTrades(store: Store | PgStore, tokenId?: number): Promise<RawTrade[]> {
  const rows = await rawSql<RawTrade>(store, RAW_TRADES);
  return tokenId === undefined ? rows : rows.filter((r) => r.tokenId === tokenId);
}

/** The token's id on either engine. */
export async function readTokenId(store: Store | PgStore, address: string): Promise<number> {
  return Number((await rawSql<{ id: number }>(store, 'SELECT id FROM tokens WHERE address = ?', [address]))[0]?.id);
}

export const tokenIdOf = (store: Store, address: string): number => store.db.prepare('SELECT id FROM tokens WHERE address = ?').pluck().get(address) as number;

/** Trades in the window (now - w, now]. */
export const inWindow = (trades: readonly RawTrade[], now: number, w: number): RawTrade[] => trades.filter((t) => t.bt > now - w && t.bt <= now);

/** The last trade in trade order with blockTime <= t. */
export const lastAtOrBefore = (trades: readonly RawTrade[], t: number): RawTrade | undefined => trades.filter((x) => x.bt <= t).at(-1);

export const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** |a - b| within 1e-9 relative (rollups may add in another order). */
export const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

export const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Top traders computed from the raw trades of a window: descending by `sort`, ties by wallet. */
export function naiveTraders(trades: readonly RawTrade[], sort: 'volume' | 'trades' | 'net') {
  const by = new Map<string, RawTrade[]>();
  for (const x of trades) by.set(x.wallet, [...(by.get(x.wallet) ?? []), x]);
  const rows = [...by].map(([wallet, xs]) => {
    const buy = sum(xs.filter((x) => x.isBuy === 1).map((x) => x.vol));
    const sell = sum(xs.filter((x) => x.isBuy === 0).map((x) => x.vol));
    const buys = xs.filter((x) => x.isBuy === 1).length;
    return { wallet, volumeUsd: buy + sell, buyVolumeUsd: buy, sellVolumeUsd: sell, netUsd: sell - buy, trades: xs.length, buys, sells: xs.length - buys };
  });
  const key = sort === 'volume' ? 'volumeUsd' : sort === 'trades' ? 'trades' : 'netUsd';
  rows.sort((a, b) => b[key] - a[key] || cmpStr(a.wallet, b.wallet));
  return rows.map((r, i) => ({ rank: i + 1, ...r }));
}
