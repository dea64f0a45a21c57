/**
 * The data every port contract test reads (test/port/): two tokens, three markets and four
 * trades at known times and prices, ingested once per test file through the real ingest on
 * whichever engine runs the suite (SQLite by default, PostgreSQL with STORE=postgres: docs/operations.md,
 * Many instances). The tests see the store only through its port: the handle (`t.store`) and
 * `Repos` (`t.services.repos`), so a third engine passes them by implementing the port.
 */
import { makeTestStore, type TestStore } from '../helpers/make-test-store.js';
import { fakeClock } from '../helpers/make-test-app.js';
import type { IngestRecord } from '../../src/domain/records.js';
import type { Repos } from '../../src/store/port/repos.js';

/** A day boundary (19,676 days after the epoch): every rollup width divides it. */
export const D = 1_700_006_400;
/** The clock stands an hour into the day. */
export const NOW = D + 3600;

const addr = (tag: string): string => (tag + '1'.repeat(44)).slice(0, 44);

export const A = addr('PortTokenA');
export const B = addr('PortTokenB');
/** Token A's markets: raydium (liquidity 5,000) and orca (1,000); token B's: raydium (2,000). */
export const MA1 = addr('PortMarketA1');
export const MA2 = addr('PortMarketA2');
export const MB = addr('PortMarketB');
export const W1 = addr('PortTraderA');
export const W2 = addr('PortTraderB');
export const SOL = 'So11111111111111111111111111111111111111112';

const token = (address: string, symbol: string, name: string): IngestRecord => ({
  type: 'token',
  address,
  symbol,
  name,
  decimals: 6,
  totalSupply: 1_000_000,
  circulatingSupply: 800_000,
  createdAt: D - 86400,
  logoUri: null,
});

const market = (address: string, tokenAddress: string, dex: string, liquidityUsd: number): IngestRecord => ({
  type: 'market',
  address,
  token: tokenAddress,
  quoteAddress: SOL,
  quoteSymbol: 'SOL',
  dex,
  liquidityUsd,
  createdAt: D - 3600,
});

const trade = (n: number, tokenAddress: string, marketAddress: string, dt: number, side: 'buy' | 'sell', priceUsd: number, wallet: string): IngestRecord => ({
  type: 'trade',
  token: tokenAddress,
  market: marketAddress,
  signature: `portsig${n}`,
  index: 0,
  blockTime: D + dt,
  side,
  priceUsd,
  amount: 10,
  quoteAmount: priceUsd / 10,
  volumeUsd: priceUsd * 10,
  wallet,
});

/**
 * The records, in one batch: trade ids follow the batch's order (1 to 4). Token A trades at
 * D+10 (1 USD, buy), D+70 (2, sell) and D+130 (3, buy, on orca); token B at D+20 (5, buy).
 * Token A's holders: W1 (300) and W2 (100).
 */
export const RECORDS: readonly IngestRecord[] = [
  token(A, 'ALPHA', 'Alpha Coin'),
  token(B, 'BETA', 'Beta Dollar'),
  market(MA1, A, 'raydium', 5000),
  market(MA2, A, 'orca', 1000),
  market(MB, B, 'raydium', 2000),
  trade(1, A, MA1, 10, 'buy', 1, W1),
  trade(2, B, MB, 20, 'buy', 5, W2),
  trade(3, A, MA1, 70, 'sell', 2, W2),
  trade(4, A, MA2, 130, 'buy', 3, W1),
  { type: 'holder', token: A, owner: W1, amount: 300, updatedAt: D },
  { type: 'holder', token: A, owner: W2, amount: 100, updatedAt: D },
];

export type PortStore = TestStore & { repos: Repos; idA: number; idB: number };

/** A fresh store with RECORDS ingested; close it in afterAll. */
export async function openPortStore(records: readonly IngestRecord[] = RECORDS): Promise<PortStore> {
  const t = makeTestStore({ clock: fakeClock(NOW * 1000) });
  await t.ingest(records);
  const repos = t.services.repos;
  const idA = (await repos.tokens.byAddress(A))?.id ?? 0;
  const idB = (await repos.tokens.byAddress(B))?.id ?? 0;
  return { ...t, repos, idA, idB };
}
