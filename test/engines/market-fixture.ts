/**
 * A market-data store for the read repos' twin tests: tokens, markets and trades made by a seeded
 * generator and written through the real ingest path into a SQLite file (so derived rows, the
 * search index, the UDF listing and the token change log are what the service writes), then
 * copied row for row into a fresh PostgreSQL database with copySqliteToPg. The data is built to
 * meet the rules' edges: symbols and names that differ only in case (ASCII and not), LIKE's
 * wildcards, dexes spelled two ways, equal liquidity and equal block times, unknown markets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/sqlite/db.js';
import { copySqliteToPg } from '../../src/store/pg/copy-store.js';
import type { IngestRecord } from '../../src/domain/records.js';
import { makeTestApp } from '../helpers/make-test-app.js';
import { loadDemo } from '../../src/services/demo.js';
import { aHolder, aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';
import { engines, type Engines } from './twins.js';

export const SYMBOLS = ['SOL', 'sol', 'BONK', 'Bonk', 'WIF', 'ÉTÉ', 'été', 'A%B', 'A_B', 'SUPER', 'SU'];
export const NAMES = ['Super Bonk', 'bonk inu', 'Été Coin', 'ÉTÉ COIN', 'Dog wif hat', 'the_dog', 'Super%Coin', 'Solana Super', 'x'];
export const DEXES = ['raydium', 'Raydium', 'orca', 'meteora'];
export const WALLETS = [anAddress('walA'), anAddress('walB'), anAddress('walC')];
const T0 = 1_700_000_000;

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type MarketFixture = {
  engines: Engines;
  store: Store;
  /** Token addresses, and the ids the store gave them. */
  tokens: { address: string; id: number }[];
  markets: string[];
  /** The highest trade id. */
  maxTradeId: number;
  close(): Promise<void>;
};

/** Holder owners: few, so amounts tie and owners settle the order. */
export const OWNERS = [anAddress('ownA'), anAddress('ownB'), anAddress('ownC'), anAddress('ownD'), anAddress('ownE')];

/**
 * Builds the store on both engines; `holders` adds up to five holders per token (equal amounts,
 * and some removed again by a zero amount), drawn from a generator of their own so the rest of
 * the store is the same with or without them; `demo` then loads a small demo set (demo tokens
 * with markets, holders and a day of trades) through the demo loader; `varied` gives trades
 * volumes and markets liquidity whose sums round (as real figures do), so sums are compared to the
 * last bit.
 */
export async function marketFixture(label: string, seed = 17, opts: { holders?: boolean; demo?: boolean; varied?: boolean } = {}): Promise<MarketFixture> {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  // Volumes and liquidity whose sums round (figures differ in the last bits when added in another
  // way or order), from a generator of their own, so the rest of the store is the same.
  const odd = prng(seed + 2);
  const LIQUIDITY = opts.varied ? [0, 500.3, 1000.7, 1000.7, 25_000.11] : [0, 500, 1000, 1000, 25_000];
  const volume = (): { volumeUsd?: number } => (opts.varied ? { volumeUsd: Math.round(odd() * 1e7) / 1e3 + 0.1 } : {});
  const dir = mkdtempSync(join(tmpdir(), `twin-${label}-`));
  const path = join(dir, 'tokens.db');
  const t = makeTestApp({ store: openStore(path, { backgroundCheckpoint: false }) });
  const records: IngestRecord[] = [];
  const tokens: string[] = [];
  const markets: string[] = [];
  // Markets some trades name and the store then loses, as a store written before ingest refused
  // unknown markets may hold such trades (their dex is null): ingested, then deleted below.
  const gone: string[] = [];
  const goneMarket = (token: string): string => {
    const market = aMarket(token, { address: anAddress('gone'), dex: 'gone', liquidityUsd: 0 });
    gone.push(market.address);
    records.push(market);
    return market.address;
  };
  for (let i = 0; i < 40; i++) {
    const token = aToken({ symbol: pick(SYMBOLS), name: pick(NAMES), createdAt: T0 + Math.floor(rnd() * 5) });
    tokens.push(token.address);
    records.push(token);
    const own: string[] = [];
    for (let m = Math.floor(rnd() * 4); m > 0; m--) {
      const market = aMarket(token.address, { dex: pick(DEXES), liquidityUsd: pick(LIQUIDITY) });
      own.push(market.address);
      records.push(market);
    }
    markets.push(...own);
    for (let n = Math.floor(rnd() * 25); n > 0; n--) {
      records.push(
        aTrade(token.address, {
          market: own.length > 0 && rnd() < 0.8 ? pick(own) : goneMarket(token.address),
          blockTime: T0 + 100 + Math.floor(rnd() * 30),
          side: rnd() < 0.5 ? 'buy' : 'sell',
          wallet: pick(WALLETS),
          priceUsd: 0.5 + Math.floor(rnd() * 100) / 8,
          index: Math.floor(rnd() * 3),
          ...volume(),
        }),
      );
    }
  }
  if (opts.holders) {
    const more = prng(seed + 1);
    for (const token of tokens) {
      for (const owner of OWNERS) {
        if (more() < 0.3) continue;
        records.push(aHolder(token, { owner, amount: [100, 100, 250, 5000.5][Math.floor(more() * 4)]! }));
        if (more() < 0.1) records.push(aHolder(token, { owner, amount: 0 }));
      }
    }
  }
  // In a few batches, so the change log has several entries per token.
  for (let i = 0; i < records.length; i += 97) t.ingest(records.slice(i, i + 97));
  const forget = t.store.db.prepare('DELETE FROM markets WHERE address = ?');
  for (const address of gone) forget.run(address);
  if (opts.demo) {
    await loadDemo(
      { repos: t.services.repos, ingest: t.services.ingest },
      { tokens: 3, days: 1, seed, until: T0 + 200, tradesPerTokenPerDay: 40, holdersPerToken: 6 },
    );
  }
  const byAddress = t.store.db.prepare<[string], number>('SELECT id FROM tokens WHERE address = ?').pluck();
  const ids = tokens.map((address) => ({ address, id: byAddress.get(address)! }));
  const maxTradeId = (t.store.db.prepare('SELECT max(id) FROM trades').pluck().get() as number | null) ?? 0;
  t.close();

  const e = await engines(label);
  const client = await e.pool.connect();
  try {
    await copySqliteToPg({ sqlitePath: path, client });
  } finally {
    client.release();
  }
  const store = openStore(path, { backgroundCheckpoint: false });
  return {
    engines: e,
    store,
    tokens: ids,
    markets,
    maxTradeId,
    async close() {
      store.close();
      await e.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
