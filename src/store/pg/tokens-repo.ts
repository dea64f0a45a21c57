/** Token rows on PostgreSQL: the twin of src/store/sqlite/tokens-repo.ts (same answers, each a promise). */
import type { Async } from '../port/async.js';
import type { TokenRow, TokensRepo } from '../port/repos.js';
import { row, type Queryable } from './pg-repo.js';

const COLUMNS = `id, address, symbol, name, decimals, total_supply AS "totalSupply", circulating_supply AS "circulatingSupply",
  created_at AS "createdAt", logo_uri AS "logoUri", updated_at AS "updatedAt", last_trade_at AS "lastTradeAt", price_usd AS "priceUsd"`;

export type PgTokensRepo = Async<TokensRepo>;

export function createPgTokensRepo(db: Queryable): PgTokensRepo {
  return {
    byAddress: (address) => row<TokenRow>(db, `SELECT ${COLUMNS} FROM tokens WHERE address = $1`, [address]),
    byId: (id) => row<TokenRow>(db, `SELECT ${COLUMNS} FROM tokens WHERE id = $1`, [id]),
  };
}
