/**
 * The ingest records of the indexer's carried state (docs/indexer.md, What is indexed): a stored
 * token's record and a market's. A batch writes them as it goes; a reorg writes them again from
 * the state as it was before the orphaned blocks (reorg.ts), so both use these.
 */
import type { IngestRecord } from '../../domain/records.js';
import type { ChainState, Pool, Token } from './state.js';

export function tokenRecord(t: Token): IngestRecord {
  return {
    type: 'token',
    address: t.address,
    symbol: t.symbol,
    name: t.name,
    decimals: t.decimals!,
    totalSupply: t.totalSupply,
    circulatingSupply: t.circulatingSupply,
    createdAt: t.createdAt,
    logoUri: null,
  };
}

/** A market's record; its quote's symbol is read from `state`'s tokens. */
export function marketRecord(p: Pool, state: Pick<ChainState, 'tokens'>): IngestRecord {
  const base = p.baseIs0 ? p.token0 : p.token1;
  const quote = p.baseIs0 ? p.token1 : p.token0;
  return {
    type: 'market',
    address: p.address,
    token: base,
    quoteAddress: quote,
    quoteSymbol: state.tokens.get(quote)!.symbol,
    dex: p.dex,
    liquidityUsd: p.liquidityUsd,
    createdAt: p.createdAt,
  };
}
