/**
 * Trending, gainers, losers and search against naive computations over the raw trades and the
 * tokens table, while trades arrive (backfill and trades ahead of the clock included), token
 * names change and the clock moves forward and back: the window boards are brought forward
 * incrementally and must never differ from a fresh computation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, withMarket, homeMarket } from '../helpers/builders.js';
import { rawSql } from '../helpers/raw-sql.js';
import { readRawTrades, inWindow, lastAtOrBefore, sum, cmpStr, type RawTrade } from './naive.js';
import { createWindowBoard } from '../../src/read/window-board.js';
import { searchTokens } from '../../src/read/search-views.js';
import { normalizeAddress } from '../../src/domain/address.js';
import { WINDOW_SECONDS, priceChangePct } from '../../src/domain/windows.js';
import type { IngestRecord } from '../../src/domain/records.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;
type TokenRow = { id: number; address: string; symbol: string; name: string; price: number | null; liquidity: number };
/** The raw tables the naive computations read, on either engine (await the helper's ingests first). */
type Raw = { trades: RawTrade[]; tokens: TokenRow[] };

async function readRaw(app: TestApp): Promise<Raw> {
  const tokens = await rawSql<TokenRow>(
    app.store,
    `SELECT id, address, symbol, name, price_usd AS price,
            (SELECT coalesce(sum(liquidity_usd), 0) FROM markets m WHERE m.token_id = tokens.id) AS liquidity FROM tokens`,
  );
  return { trades: await readRawTrades(app.store), tokens };
}

function naiveRanking({ trades, tokens }: Raw, kind: 'trending' | 'gainers' | 'losers', w: number, now: number, minLiquidity: number): string[] {
  const rows = tokens.flatMap((tok) => {
    const mine = trades.filter((x) => x.tokenId === tok.id);
    const win = inWindow(mine, now, w);
    const base = lastAtOrBefore(mine, now - w)?.price ?? null;
    return tok.liquidity >= minLiquidity ? [{ tok, volume: sum(win.map((x) => x.vol)), trades: win.length, change: priceChangePct(tok.price, base) }] : [];
  });
  const dir = kind === 'gainers' ? 1 : -1;
  const picked =
    kind === 'trending'
      ? rows.filter((r) => r.volume > 0).sort((a, b) => b.volume - a.volume || cmpStr(a.tok.address, b.tok.address))
      : rows.filter((r) => r.trades >= 10 && r.change !== null).sort((a, b) => dir * (b.change! - a.change!) || cmpStr(a.tok.address, b.tok.address));
  return picked.slice(0, 100).map((r) => r.tok.address);
}

function naiveSearch({ trades, tokens }: Raw, q: string, now: number, want: number): [string, string, number][] {
  const qf = q.toLowerCase();
  const address = normalizeAddress(q);
  const kinds = ['address', 'symbol', 'symbolPrefix', 'name'];
  return tokens
    .map((tok) => {
      const sym = tok.symbol.toLowerCase();
      const kind = tok.address === address ? 0 : sym === qf ? 1 : sym.startsWith(qf) ? 2 : tok.name.toLowerCase().includes(qf) ? 3 : -1;
      const volume = sum(
        inWindow(
          trades.filter((x) => x.tokenId === tok.id),
          now,
          86400,
        ).map((x) => x.vol),
      );
      return { tok, kind, volume };
    })
    .filter((r) => r.kind >= 0)
    .sort((a, b) => a.kind - b.kind || b.volume - a.volume || cmpStr(a.tok.address, b.tok.address))
    .slice(0, want)
    .map((r): [string, string, number] => [r.tok.address, kinds[r.kind]!, r.volume]);
}

// Letters with case and beyond ASCII, so folding and prefixes meet; integer volumes add exactly.
const letter = fc.constantFrom('a', 'B', 'b', 'Ä', 'ä', 'c', '%', '_');
const word = fc.array(letter, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(''));
const op = fc.oneof(
  fc.record({
    kind: fc.constant('trades' as const),
    token: fc.nat(7),
    n: fc.integer({ min: 1, max: 12 }),
    at: fc.integer({ min: -100_000, max: 3000 }),
    price: fc.integer({ min: 1, max: 9 }),
    vol: fc.integer({ min: 0, max: 50 }),
  }),
  // Mostly steps the board is brought forward over; some long ones and some back, which rebuild it.
  fc.record({ kind: fc.constant('clock' as const), seconds: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: -4000, max: 30_000 })) }),
  fc.record({ kind: fc.constant('rename' as const), token: fc.nat(7), symbol: word, name: word }),
  fc.record({ kind: fc.constant('market' as const), token: fc.nat(7), liquidity: fc.integer({ min: 0, max: 3 }) }),
);

describe('discovery and search as trades arrive and the clock moves', () => {
  it('equal naive rankings and a naive search after every step', async () => {
    // 41 runs, each on a fresh store (rankings and search span every token in it): on PostgreSQL
    // a new database each, about a second on a loaded machine, hence the longer timeout.
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(word, word), { minLength: 8, maxLength: 8 }),
        fc.array(op, { minLength: 1, maxLength: 12 }),
        fc.array(word, { minLength: 3, maxLength: 3 }),
        async (names, ops, queries) => {
          await t?.close();
          t = makeTestApp();
          t.clock.set(NOW * 1000);
          const toks = names.map(([symbol, name]) => aToken({ symbol, name }));
          await t.ingest(toks.flatMap((x) => withMarket(x)));
          const boards = { '1h': createWindowBoard(t.store, t.services.repos, '1h'), '24h': createWindowBoard(t.store, t.services.repos, '24h') };
          const index = t.services.repos.searchIndex;
          for (const o of ops) {
            const now = t.clock.seconds();
            let records: IngestRecord[] = [];
            if (o.kind === 'trades') {
              const tok = toks[o.token]!.address;
              records = Array.from({ length: o.n }, (_, i) =>
                aTrade(tok, { blockTime: now + o.at + i * 7, priceUsd: i === o.n - 1 ? o.price : 5, volumeUsd: o.vol }),
              );
            } else if (o.kind === 'clock') t.clock.advance(o.seconds * 1000);
            else if (o.kind === 'rename') records = [{ ...toks[o.token]!, symbol: o.symbol, name: o.name }];
            else records = [aMarket(toks[o.token]!.address, { liquidityUsd: o.liquidity })];
            if (records.length > 0) await t.ingest(records);
            const raw = await readRaw(t);
            const addressOf = new Map(raw.tokens.map((x) => [x.id, x.address]));

            for (const w of ['1h', '24h'] as const) {
              const at = await boards[w].refresh(() => t.clock.seconds());
              expect(at).toBe(t.clock.seconds());
              for (const kind of ['trending', 'gainers', 'losers'] as const) {
                const got = boards[w].ranking(kind).map((e) => e.t.address);
                expect(got).toEqual(naiveRanking(raw, kind, WINDOW_SECONDS[w], at, 0));
              }
            }
            for (const q of [...queries, toks[0]!.address]) {
              // Answers of 2 stop early; answers of 6 often need every kind.
              for (const want of [2, 6]) {
                const hits = (await searchTokens(index, boards['24h'], q, normalizeAddress(q), want, 2)).map((h) => [
                  addressOf.get(h.id),
                  h.matchedBy,
                  h.volume24hUsd,
                ]);
                expect(hits).toEqual(naiveSearch(raw, q, t.clock.seconds(), want));
              }
            }
          }
        },
      ),
      {
        numRuns: 40,
        // Two traded tokens with the same symbol prefix: a search of 2 must not stop before both.
        examples: [
          [
            [
              ['Ba', 'a'],
              ['a', 'a'],
              ['a', 'a'],
              ['a', 'a'],
              ['a', 'a'],
              ['a', 'a'],
              ['a', 'a'],
              ['Ba', 'a'],
            ],
            [
              { kind: 'trades', token: 0, n: 1, at: 0, price: 1, vol: 1 },
              { kind: 'trades', token: 7, n: 1, at: 0, price: 1, vol: 1 },
              { kind: 'clock', seconds: 1 },
            ],
            ['a', 'B', 'a'],
          ],
        ],
      },
    );
  }, 240_000);

  it('answer over HTTP like the naive computation, minLiquidityUsd and limit included', async () => {
    t = makeTestApp();
    t.clock.set(NOW * 1000);
    const toks = ['Alpha', 'alps', 'Beta', 'ALPHA'].map((symbol, i) => aToken({ symbol, name: `${symbol} coin ${i}` }));
    await t.ingest(toks);
    await t.ingest(toks.map((x, i) => homeMarket(x.address, { liquidityUsd: 100 * i })));
    await t.ingest(
      toks.flatMap((x, i) =>
        Array.from({ length: 12 }, (_, k) => aTrade(x.address, { blockTime: NOW - 5000 + k * 60, priceUsd: k === 11 ? i + 2 : 1, volumeUsd: 3 * i + 1 })),
      ),
    );
    const raw = await readRaw(t);
    for (const step of [0, 1, 600, 86_000]) {
      t.clock.advance(step * 1000);
      const now = t.clock.seconds();
      for (const kind of ['trending', 'gainers', 'losers'] as const) {
        const res = await t.http.get(`/v1/market/${kind}?window=1h&minLiquidityUsd=100&limit=2`);
        expect(res.body.tokens.map((x: { address: string }) => x.address)).toEqual(naiveRanking(raw, kind, 3600, now, 100).slice(0, 2));
      }
      const res = await t.http.get('/v1/search?q=alp&limit=3');
      expect(res.body.results.map((r: { address: string; matchedBy: string; volume24hUsd: number }) => [r.address, r.matchedBy, r.volume24hUsd])).toEqual(
        naiveSearch(raw, 'alp', now, 3),
      );
    }
  });
});
