/** Token rows: lookup by address (the entry of every token route) and by id. */
import type { Db } from './db.js';
import type { TokenRow, TokensRepo } from '../port/tokens.js';

// The interface and row types are the port's (src/store/port/tokens.ts), named here too.
export type { TokenRow, TokensRepo } from '../port/tokens.js';

const COLUMNS = `id, address, symbol, name, decimals, total_supply AS totalSupply, circulating_supply AS circulatingSupply,
  created_at AS createdAt, logo_uri AS logoUri, updated_at AS updatedAt, last_trade_at AS lastTradeAt, price_usd AS priceUsd`;

export function createTokensRepo(db: Db): TokensRepo {
  const byAddress = db.prepare<[string], TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE address = ?`);
  const byId = db.prepare<[number], TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE id = ?`);
  return {
    /** The token with this (already normalised) address, or undefined. */
    byAddress: (address: string): TokenRow | undefined => byAddress.get(address),
    byId: (id: number): TokenRow | undefined => byId.get(id),
  };
}
