/**
 * The store of 20,000 tokens the search and discovery bounds are pinned on (README, Search and
 * Discovery): symbols and names of deterministic letters, one market each, and trades for the
 * first 4,000 (three each inside the day for the first 2,000, one two days ago for the next).
 */
import type { IngestRecord } from '../../src/domain/records.js';
import type { TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, homeMarket } from '../helpers/builders.js';

export const NOW = 1_700_000_000;
export const TOKENS = 20_000;
export const ACTIVE = 2_000;

/** A deterministic word of `n` lower-case letters for token number `i`. */
export function word(i: number, n: number, salt: number): string {
  let x = (i * 2654435761 + salt * 40503) >>> 0;
  let s = '';
  for (let k = 0; k < n; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += String.fromCharCode(97 + ((x >>> 16) % 26));
  }
  return s;
}

/** Sets the clock to NOW and ingests the tokens in order; answers their addresses, token i at i. */
export async function fillDiscoveryStore(t: TestApp): Promise<string[]> {
  t.clock.set(NOW * 1000);
  const addresses: string[] = [];
  for (let from = 0; from < TOKENS; from += 5000) {
    const batch: IngestRecord[] = [];
    for (let i = from; i < from + 5000; i++) {
      const tok = aToken({ symbol: word(i, 3 + (i % 2), 1).toUpperCase(), name: `${word(i, 5, 2)} ${word(i, 4, 3)}` });
      addresses.push(tok.address);
      batch.push(tok, homeMarket(tok.address, { liquidityUsd: i % 1000 }));
      if (i < ACTIVE)
        for (let k = 0; k < 3; k++) batch.push(aTrade(tok.address, { blockTime: NOW - 80_000 + i * 30 + k, volumeUsd: 1 + (i % 97), priceUsd: 1 + k }));
      else if (i < 2 * ACTIVE) batch.push(aTrade(tok.address, { blockTime: NOW - 200_000 + i }));
    }
    await t.ingest(batch);
  }
  return addresses;
}
