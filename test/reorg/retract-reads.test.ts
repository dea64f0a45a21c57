/**
 * A retraction leaves every read as it would be had the removed trades, markets and tokens never
 * been ingested and the records written back been the last ones (docs/indexer.md, Reorgs: what a
 * retraction removes): random trades over a few tokens, markets and wallets, then a retraction of
 * the newest blocks (a reorg) or of any subset, compared read for read through HTTP with a second
 * store that ingested only what remains. Runs on SQLite and, with STORE=postgres, on PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { anAddress } from '../helpers/builders.js';
import { testEngine } from '../helpers/pg-test-store.js';
import type { IngestRecord, TradeRecord } from '../../src/domain/records.js';
import type { Retraction } from '../../src/store/port/retract.js';
import { firstDifference, readEverything, withoutNumbers } from './reads.js';

const NOW = 1_700_000_000;
const SPAN = 2 * 86_400;
const RUNS = testEngine() === 'postgres' ? 6 : 12;

type Draw = {
  trades: { token: number; market: number; wallet: number; dt: number; buy: boolean; price: number; vol: number; amount: number }[];
  /** Reorg: remove trades at or after this point of the span; arbitrary: remove the ones flagged. */
  mode: { kind: 'reorg'; cut: number } | { kind: 'subset'; pick: boolean[] };
  /** Whether the newest token and the extra market are first seen in the removed part. */
  fresh: boolean;
};

const tradeArb = fc.record({
  token: fc.integer({ min: 0, max: 1 }),
  market: fc.integer({ min: 0, max: 1 }),
  wallet: fc.integer({ min: 0, max: 3 }),
  // Mostly the last hours, so windows and seconds buckets hold several trades.
  dt: fc.oneof(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 7200 }), fc.integer({ min: 0, max: SPAN })),
  buy: fc.boolean(),
  price: fc.double({ min: 0.5, max: 2, noNaN: true }),
  vol: fc.double({ min: 1, max: 1000, noNaN: true }),
  amount: fc.constantFrom(0, 5, 10),
});
const drawArb: fc.Arbitrary<Draw> = fc.array(tradeArb, { minLength: 1, maxLength: 30 }).chain((trades) =>
  fc.record({
    trades: fc.constant(trades),
    mode: fc.oneof(
      fc.record({ kind: fc.constant('reorg' as const), cut: fc.integer({ min: 0, max: 130 }) }),
      fc.record({ kind: fc.constant('subset' as const), pick: fc.array(fc.boolean(), { minLength: trades.length, maxLength: trades.length }) }),
    ),
    fresh: fc.boolean(),
  }),
);

/** The world of one draw: the records to ingest, the retraction, and what a store that never saw the removed part ingests. */
function world(d: Draw) {
  const tokens = [0, 1, 2].map((i) => anAddress(`tok${i}`));
  const markets = [0, 1, 2, 3].map((i) => anAddress(`mkt${i}`));
  const extra = anAddress('mktx');
  const wallets = [0, 1, 2, 3].map((i) => anAddress(`wal${i}`));
  const owner = anAddress('own');
  const head: IngestRecord[] = [
    ...tokens.slice(0, 2).map((address, i): IngestRecord => ({
      type: 'token',
      address,
      symbol: `SY${i}`,
      name: `Token ${i}`,
      decimals: 6,
      totalSupply: 1e6,
      circulatingSupply: 8e5,
      createdAt: NOW - SPAN - 100 + i,
      logoUri: null,
    })),
    ...markets.map((address, i): IngestRecord => ({
      type: 'market',
      address,
      token: tokens[i % 2]!,
      quoteAddress: anAddress('q'),
      quoteSymbol: 'SOL',
      dex: i < 2 ? 'raydium' : 'orca',
      liquidityUsd: 1000 * (i + 1),
      createdAt: NOW - SPAN,
    })),
    { type: 'holder', token: tokens[0]!, owner, amount: 50, updatedAt: NOW - 500 },
  ];
  let n = 0;
  const trade = (t: Draw['trades'][number], token: string, market: string): TradeRecord => ({
    type: 'trade',
    token,
    market,
    signature: `s${n++}x${token.slice(-6)}`,
    index: n % 3,
    blockTime: NOW - SPAN + t.dt,
    side: t.buy ? 'buy' : 'sell',
    priceUsd: t.price,
    amount: t.amount,
    quoteAmount: t.vol / 100,
    volumeUsd: t.vol,
    wallet: wallets[t.wallet]!,
  });
  const trades = d.trades.map((t) => trade(t, tokens[t.token]!, markets[t.token + 2 * t.market]!));
  const cutTime = d.mode.kind === 'reorg' ? NOW - d.mode.cut : 0;
  const removed = trades.filter((t, i) => (d.mode.kind === 'reorg' ? t.blockTime >= cutTime : d.mode.pick[i] === true));
  // The orphaned part: a holder change, and maybe a market and a token first seen in it, with trades.
  const orphaned: IngestRecord[] = [{ type: 'holder', token: tokens[0]!, owner, amount: 75, updatedAt: NOW - 10 }];
  const freshTrades: TradeRecord[] = [];
  if (d.fresh) {
    orphaned.push(
      {
        type: 'token',
        address: tokens[2]!,
        symbol: 'SY2',
        name: 'Token 2',
        decimals: 6,
        totalSupply: 1e6,
        circulatingSupply: 8e5,
        createdAt: NOW - 50,
        logoUri: null,
      },
      {
        type: 'market',
        address: extra,
        token: tokens[0]!,
        quoteAddress: anAddress('q'),
        quoteSymbol: 'SOL',
        dex: 'meteora',
        liquidityUsd: 99,
        createdAt: NOW - 40,
      },
    );
    freshTrades.push(trade(d.trades[0]!, tokens[0]!, extra), trade(d.trades[0]!, tokens[2]!, extra));
    for (const t of freshTrades) t.blockTime = NOW - 5;
  }
  const all = [...head, ...trades, ...orphaned, ...freshTrades];
  const gone = new Set([...removed, ...freshTrades]);
  const retraction: Retraction = {
    trades: [...gone].map((t) => ({ signature: t.signature, index: t.index })),
    markets: d.fresh ? [extra] : [],
    tokens: d.fresh ? [tokens[2]!] : [],
    records: [{ type: 'holder', token: tokens[0]!, owner, amount: 50, updatedAt: NOW - 500 }],
  };
  const remaining = [...head, ...trades.filter((t) => !gone.has(t))];
  return { all, retraction, remaining, tokens, markets: [...markets, extra], removed: gone.size };
}

async function load(t: TestApp, records: readonly IngestRecord[]): Promise<void> {
  await t.ingest(records);
  await t.settled();
}

describe('a retraction leaves every read as if the removed trades had never been ingested', () => {
  it('after a reorg of the newest blocks or of any subset, with markets and tokens first seen there', async () => {
    await fc.assert(
      fc.asyncProperty(drawArb, async (d) => {
        const w = world(d);
        const a = makeTestApp();
        const b = makeTestApp();
        try {
          await load(a, w.all);
          const result = await a.services.ingest.retract(w.retraction);
          expect(result.removed).toBe(w.removed);
          await load(b, w.remaining);
          const q = {
            tokens: w.tokens,
            markets: w.markets,
            terms: ['sy', 'SY2', 'token'],
            from: NOW - SPAN - 86_400 * 40,
            to: NOW + 60,
            at: [NOW - 60, NOW - 3, NOW],
          };
          const [got, want] = [withoutNumbers(await readEverything(a, q)), withoutNumbers(await readEverything(b, q))];
          expect(firstDifference(got, want)).toBeNull();
        } finally {
          await a.close();
          await b.close();
        }
      }),
      { numRuns: RUNS },
    );
  }, 600_000);
});
