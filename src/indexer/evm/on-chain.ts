/**
 * The indexer's records and retractions as the store keys them (docs/chains.md, How chains are
 * stored): the indexer's carried state names tokens, markets and pools by their plain addresses,
 * one chain per run, and these put what it hands the ingest on that chain. A record carries its
 * `chain` (the ingest turns its token and market addresses into store keys); a retraction's
 * deleted tokens and markets are store keys already, as the store removes them by key.
 */
import { storeKey, type Chains } from '../../domain/chains.js';
import type { IngestRecord } from '../../domain/records.js';
import type { Retraction } from '../../store/port/retract.js';

/** An indexer record as an ingest record of `chain`. */
export const recordOn = <R extends object>(record: R, chain: string): R & { chain: string } => ({ ...record, chain });

/** A retraction of the indexer of `chain`, its token and market addresses made store keys. */
export function retractionOn(r: Retraction, chain: string, chains: Chains): Retraction {
  const key = (address: string) => storeKey({ chain, address }, chains);
  return {
    trades: r.trades,
    markets: r.markets.map(key),
    tokens: r.tokens.map(key),
    records: r.records.map((x): IngestRecord => recordOn(x, chain)),
  };
}
