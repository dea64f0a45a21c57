/** Token rows: lookup by address (the entry of every token route) and by id. */
import type { Db } from './db.js';

export type TokenRow = {
  id: number;
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  totalSupply: number | null;
  circulatingSupply: number | null;
  createdAt: number;
  logoUri: string | null;
  updatedAt: number;
  lastTradeAt: number | null;
  priceUsd: number | null;
};

const COLUMNS = `id, address, symbol, name, decimals, total_supply AS totalSupply, circulating_supply AS circulatingSupply,
  created_at AS createdAt, logo_uri AS logoUri, updated_at AS updatedAt, last_trade_at AS lastTradeAt, price_usd AS priceUsd`;

export function createTokensRepo(db: Db) {
  const byAddress = db.prepare<[string], TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE address = ?`);
  const byId = db.prepare<[number], TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE id = ?`);
  return {
    /** The token with this (already normalised) address, or undefined. */
    byAddress: (address: string): TokenRow | undefined => byAddress.get(address),
    byId: (id: number): TokenRow | undefined => byId.get(id),
  };
}

export type TokensRepo = ReturnType<typeof createTokensRepo>;
