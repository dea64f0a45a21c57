/**
 * udf_listing read straight from the table, and as it must be (recomputed from tokens and
 * markets), on either engine: the reference the search-index tests compare the listing with.
 */
import type { Store } from '../../src/store/sqlite/db.js';
import type { PgStore } from '../../src/store/pg/pg-store.js';
import { rawSql } from '../helpers/raw-sql.js';

export type ListingRow = { token_id: number; dex: string; liquidity_usd: number; address: string; symbol: string };

/** udf_listing as it must be: recomputed from tokens and markets. */
export const expectedListing = (store: Store | PgStore): Promise<ListingRow[]> =>
  rawSql<ListingRow>(
    store,
    `SELECT t.id AS token_id, '' AS dex, coalesce((SELECT sum(liquidity_usd) FROM markets WHERE token_id = t.id), 0) AS liquidity_usd,
       t.address, t.symbol FROM tokens t
     UNION
     SELECT DISTINCT m.token_id, m.dex, coalesce((SELECT sum(liquidity_usd) FROM markets WHERE token_id = m.token_id), 0),
       t.address, t.symbol FROM markets m JOIN tokens t ON t.id = m.token_id
     ORDER BY 1, 2`,
  );

/** udf_listing as it is. */
export const listing = (store: Store | PgStore): Promise<ListingRow[]> =>
  rawSql<ListingRow>(store, 'SELECT token_id, dex, liquidity_usd, address, symbol FROM udf_listing ORDER BY 1, 2');
