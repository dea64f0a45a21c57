/**
 * Reads what the indexer stored through the HTTP API of makeTestApp() and checks it against the
 * naive oracle (oracle.ts): every trade of every token (fields, order, record numbers in chain
 * order), the one-minute bars of /udf/history against a naive aggregation of the oracle's trades,
 * the overview and its 24h window, the markets, and the holders; expectEveryRead adds the rest of
 * the reads docs/indexer.md's Reorgs section names (candles, /udf/quotes, top traders, prices and
 * prices at a time, search, discovery). Numbers within 1e-9 relative; everything else exact. The
 * trades of the last 24 h are all the oracle's (the tests' chains are minutes old). Shared by the
 * end-to-end, fault, kill-resume and reorg tests.
 */
import { expect } from 'vitest';
import type { TestApp } from '../make-test-app.js';
import type { Expected, ExpectedTrade } from './oracle.js';

const REL = 1e-9;

/** True when a and b agree within 1e-9 relative (or both are 0). */
export function close(a: unknown, b: number): boolean {
  if (typeof a !== 'number') return false;
  if (a === b) return true;
  return Math.abs(a - b) <= REL * Math.max(Math.abs(a), Math.abs(b));
}

/** An object of the same keys whose numbers are those of `expected` wherever `actual`'s are within 1e-9. */
function approx<T extends Record<string, unknown>>(actual: Record<string, unknown>, expected: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(expected)) out[k] = typeof v === 'number' && close(actual[k], v) ? v : actual[k];
  return out;
}

type ApiTrade = {
  id: number;
  signature: string;
  index: number;
  blockTime: number;
  side: string;
  priceUsd: number;
  amount: number;
  quoteAmount: number;
  volumeUsd: number;
  wallet: string;
  market: string;
  dex: string;
};

/** Every check of this file, for all of `expected`'s tokens. */
export async function expectStoreMatchesOracle(t: TestApp, e: Expected): Promise<void> {
  await expectTrades(t, e);
  await expectBars(t, e);
  await expectOverviews(t, e);
  await expectMarkets(t, e);
  await expectHolders(t, e);
}

const tradesOf = (e: Expected, token: string): ExpectedTrade[] => e.trades.filter((x) => x.token === token);

/** Each token's trades, newest first, equal to the oracle's; record numbers rise in chain order across tokens. */
export async function expectTrades(t: TestApp, e: Expected): Promise<void> {
  const dexOf = new Map(e.markets.map((m) => [m.address, m.dex]));
  const ids = new Map<string, number>();
  for (const token of e.tokens) {
    const res = await t.http.get(`/v1/token/${token.address}/trades?limit=1000`);
    expect(res.status).toBe(200);
    const got = res.body.trades as ApiTrade[];
    const want = [...tradesOf(e, token.address)].reverse();
    expect(got.length).toBe(want.length);
    got.forEach((g, i) => {
      const w = want[i] as ExpectedTrade;
      const expected = {
        signature: w.signature,
        index: w.index,
        blockTime: w.blockTime,
        side: w.side,
        wallet: w.wallet,
        market: w.market,
        dex: dexOf.get(w.market),
        amount: w.amount,
        quoteAmount: w.quoteAmount,
        priceUsd: w.priceUsd,
        volumeUsd: w.volumeUsd,
      };
      expect({ token: token.address, ...approx(g, expected) }).toEqual({ token: token.address, ...expected });
      ids.set(`${g.signature}:${g.index}`, g.id);
    });
  }
  const inChainOrder = e.trades.map((x) => ids.get(`${x.signature}:${x.index}`) as number);
  expect(inChainOrder).toEqual([...inChainOrder].sort((a, b) => a - b));
  expect(new Set(inChainOrder).size).toBe(e.trades.length);
}

type Bar = { o: number; h: number; l: number; c: number; v: number };

/** The one-minute bars of trades in chain order, by bucket time. */
function minuteBars(trades: readonly ExpectedTrade[]): Map<number, Bar> {
  const buckets = new Map<number, Bar>();
  for (const x of trades) {
    const b = Math.floor(x.blockTime / 60) * 60;
    const bar = buckets.get(b);
    if (bar === undefined) buckets.set(b, { o: x.priceUsd, h: x.priceUsd, l: x.priceUsd, c: x.priceUsd, v: x.volumeUsd });
    else Object.assign(bar, { h: Math.max(bar.h, x.priceUsd), l: Math.min(bar.l, x.priceUsd), c: x.priceUsd, v: bar.v + x.volumeUsd });
  }
  return buckets;
}

/** One-minute bars of /udf/history, equal to aggregating the oracle's trades in chain order. */
export async function expectBars(t: TestApp, e: Expected): Promise<void> {
  for (const token of e.tokens) {
    const trades = tradesOf(e, token.address);
    if (trades.length === 0) continue;
    const buckets = minuteBars(trades);
    const from = Math.min(...buckets.keys());
    const to = Math.max(...buckets.keys()) + 60;
    const res = await t.http.get(`/udf/history?symbol=${token.address}&resolution=1&from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    const body = res.body as { s: string; t: number[]; o: number[]; h: number[]; l: number[]; c: number[]; v: number[] };
    const times = [...buckets.keys()].sort((a, b) => a - b);
    expect([token.address, body.s, body.t]).toEqual([token.address, 'ok', times]);
    times.forEach((time, i) => {
      const want = buckets.get(time) as { o: number; h: number; l: number; c: number; v: number };
      const got = { o: body.o[i], h: body.h[i], l: body.l[i], c: body.c[i], v: body.v[i] };
      expect({ token: token.address, time, ...approx(got, want) }).toEqual({ token: token.address, time, ...want });
    });
  }
}

/** The overview of each token: fields, price, supplies, caps, liquidity, holders, the 24h window. */
export async function expectOverviews(t: TestApp, e: Expected): Promise<void> {
  const holders = new Map<string, number>();
  for (const h of e.holders) holders.set(h.token, (holders.get(h.token) ?? 0) + 1);
  for (const token of e.tokens) {
    const res = await t.http.get(`/v1/token/${token.address}/overview`);
    expect(res.status).toBe(200);
    const trades = tradesOf(e, token.address);
    const last = trades[trades.length - 1] as ExpectedTrade;
    const markets = e.markets.filter((m) => m.token === token.address);
    const buys = trades.filter((x) => x.side === 'buy');
    const sells = trades.filter((x) => x.side === 'sell');
    const sum = (xs: ExpectedTrade[]): number => xs.reduce((s, x) => s + x.volumeUsd, 0);
    const want = {
      address: token.address,
      symbol: token.symbol,
      name: token.name,
      decimals: token.decimals,
      createdAt: token.createdAt,
      totalSupply: token.totalSupply,
      circulatingSupply: token.circulatingSupply,
      priceUsd: last.priceUsd,
      marketCapUsd: last.priceUsd * token.circulatingSupply,
      fdvUsd: last.priceUsd * token.totalSupply,
      liquidityUsd: markets.reduce((s, m) => s + (m.liquidityUsd as number), 0),
      holders: holders.get(token.address) ?? 0,
      markets: markets.length,
      lastTradeAt: last.blockTime,
    };
    expect(approx(res.body, want)).toEqual(want);
    const w = res.body.windows['24h'] as Record<string, unknown>;
    const window = {
      volumeUsd: sum(trades),
      buyVolumeUsd: sum(buys),
      sellVolumeUsd: sum(sells),
      trades: trades.length,
      buys: buys.length,
      sells: sells.length,
      uniqueWallets: new Set(trades.map((x) => x.wallet)).size,
    };
    expect({ token: token.address, ...approx(w, window) }).toEqual({ token: token.address, ...window });
  }
}

/** Each token's markets: pool, dex, quote, liquidity, creation time, last price. */
export async function expectMarkets(t: TestApp, e: Expected): Promise<void> {
  for (const token of e.tokens) {
    const res = await t.http.get(`/v1/token/${token.address}/markets`);
    expect(res.status).toBe(200);
    const got = new Map((res.body.markets as Record<string, unknown>[]).map((g) => [String(g.address), g]));
    const want = e.markets.filter((m) => m.token === token.address);
    expect([token.address, got.size]).toEqual([token.address, want.length]);
    for (const m of want) {
      const last = [...tradesOf(e, token.address)].reverse().find((x) => x.market === m.address);
      const w = {
        address: m.address,
        dex: m.dex,
        quoteAddress: m.quoteAddress,
        quoteSymbol: m.quoteSymbol,
        createdAt: m.createdAt,
        liquidityUsd: m.liquidityUsd as number,
        priceUsd: last?.priceUsd ?? null,
      };
      expect(pick(approx(got.get(m.address) ?? {}, w), Object.keys(w))).toEqual(w);
    }
  }
}

/** Each token's holders: the count and every owner's amount. */
export async function expectHolders(t: TestApp, e: Expected): Promise<void> {
  for (const token of e.tokens) {
    const res = await t.http.get(`/v1/token/${token.address}/holders?limit=1000`);
    expect(res.status).toBe(200);
    const want = e.holders.filter((h) => h.token === token.address);
    expect([token.address, res.body.totalHolders]).toEqual([token.address, want.length]);
    const got = new Map((res.body.holders as { owner: string; amount: number }[]).map((h) => [h.owner, h.amount]));
    for (const h of want)
      expect([token.address, h.owner, close(got.get(h.owner), h.amount) ? h.amount : got.get(h.owner)]).toEqual([token.address, h.owner, h.amount]);
  }
}

/** Every read of docs/indexer.md's Reorgs section: expectStoreMatchesOracle's and the rest below. */
export async function expectEveryRead(t: TestApp, e: Expected): Promise<void> {
  await expectStoreMatchesOracle(t, e);
  await expectCandles(t, e);
  await expectQuotesAndPrices(t, e);
  await expectTopTraders(t, e);
  await expectSearchAndDiscovery(t, e);
}

const sumUsd = (xs: readonly ExpectedTrade[]): number => xs.reduce((s, x) => s + x.volumeUsd, 0);

/** /v1/token/:a/candles (one minute), equal to the naive bars; a token without trades has none. */
export async function expectCandles(t: TestApp, e: Expected): Promise<void> {
  for (const token of e.tokens) {
    const trades = tradesOf(e, token.address);
    const buckets = minuteBars(trades);
    const to = trades.length === 0 ? 60 : Math.max(...buckets.keys()) + 60;
    const res = await t.http.get(`/v1/token/${token.address}/candles?resolution=1&from=0&to=${to}`);
    expect([token.address, res.status]).toEqual([token.address, 200]);
    const got = (res.body.candles as ({ t: number } & Bar)[]).map((c) => ({ t: c.t, ...approx(c, buckets.get(c.t) ?? ({} as Bar)) }));
    const want = [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([time, bar]) => ({ t: time, ...bar }));
    expect({ token: token.address, candles: got }).toEqual({ token: token.address, candles: want });
  }
}

/** /udf/quotes (last price, 24 h volume, open, high, low), /v1/prices and /v1/prices/at the newest trade's time. */
export async function expectQuotesAndPrices(t: TestApp, e: Expected): Promise<void> {
  const addresses = e.tokens.map((x) => x.address);
  const quotes = await t.http.get(`/udf/quotes?symbols=${addresses.join(',')}`);
  const prices = await t.http.get(`/v1/prices?addresses=${addresses.join(',')}`);
  const at = e.trades.length === 0 ? 0 : Math.max(...e.trades.map((x) => x.blockTime));
  const pricesAt = await t.http.get(`/v1/prices/at?addresses=${addresses.join(',')}&time=${at}`);
  expect([quotes.status, prices.status, pricesAt.status]).toEqual([200, 200, 200]);
  e.tokens.forEach((token, i) => {
    const trades = tradesOf(e, token.address);
    const last = trades.at(-1);
    const q = (quotes.body.d as { v: Record<string, unknown> }[])[i]!.v;
    const wantQuote =
      last === undefined
        ? { lp: null, volume: 0 }
        : {
            lp: last.priceUsd,
            volume: sumUsd(trades),
            open_price: trades[0]!.priceUsd,
            high_price: Math.max(...trades.map((x) => x.priceUsd)),
            low_price: Math.min(...trades.map((x) => x.priceUsd)),
          };
    expect({ token: token.address, quote: pick(approx(q, wantQuote), Object.keys(wantQuote)) }).toEqual({ token: token.address, quote: wantQuote });
    const p = (prices.body.prices as Record<string, Record<string, unknown> | null>)[token.address];
    const wantPrice = { priceUsd: last?.priceUsd ?? null, updatedAt: last?.blockTime ?? null };
    expect({ token: token.address, price: pick(approx(p ?? {}, wantPrice as Record<string, unknown>), Object.keys(wantPrice)) }).toEqual({
      token: token.address,
      price: wantPrice,
    });
    const pa = (pricesAt.body.prices as Record<string, Record<string, unknown> | null>)[token.address];
    const wantAt = last === undefined ? null : { priceUsd: last.priceUsd, blockTime: last.blockTime };
    expect({ token: token.address, at: pa == null || wantAt === null ? (pa ?? null) : pick(approx(pa, wantAt), Object.keys(wantAt)) }).toEqual({
      token: token.address,
      at: wantAt,
    });
  });
}

/** Each token's top traders of 24 h by volume: per wallet volume, buys and sells, descending, ties by wallet. */
export async function expectTopTraders(t: TestApp, e: Expected): Promise<void> {
  for (const token of e.tokens) {
    const byWallet = new Map<string, ExpectedTrade[]>();
    for (const x of tradesOf(e, token.address)) byWallet.set(x.wallet, [...(byWallet.get(x.wallet) ?? []), x]);
    const want = [...byWallet.entries()]
      .map(([wallet, xs]) => {
        const buys = xs.filter((x) => x.side === 'buy');
        const sells = xs.filter((x) => x.side === 'sell');
        return {
          wallet,
          volumeUsd: sumUsd(xs),
          buyVolumeUsd: sumUsd(buys),
          sellVolumeUsd: sumUsd(sells),
          trades: xs.length,
          buys: buys.length,
          sells: sells.length,
        };
      })
      .sort((a, b) => b.volumeUsd - a.volumeUsd || (a.wallet < b.wallet ? -1 : 1));
    const res = await t.http.get(`/v1/token/${token.address}/top-traders?window=24h&sort=volume&limit=1000`);
    expect([token.address, res.status]).toEqual([token.address, 200]);
    const got = (res.body.traders as Record<string, unknown>[]).map((g, i) =>
      pick(approx(g, want[i] ?? {}), ['wallet', 'volumeUsd', 'buyVolumeUsd', 'sellVolumeUsd', 'trades', 'buys', 'sells']),
    );
    expect({ token: token.address, traders: got }).toEqual({ token: token.address, traders: want });
  }
}

/** /v1/search by each token's address (price, liquidity, 24 h volume) and the trending board (by 24 h volume, ties by address). */
export async function expectSearchAndDiscovery(t: TestApp, e: Expected): Promise<void> {
  for (const token of e.tokens) {
    const trades = tradesOf(e, token.address);
    const res = await t.http.get(`/v1/search?q=${token.address}`);
    expect([token.address, res.status]).toEqual([token.address, 200]);
    const want = {
      address: token.address,
      priceUsd: trades.at(-1)?.priceUsd ?? null,
      liquidityUsd: e.markets.filter((m) => m.token === token.address).reduce((s, m) => s + (m.liquidityUsd ?? 0), 0),
      volume24hUsd: sumUsd(trades),
    };
    const got = (res.body.results as Record<string, unknown>[]).map((r) => pick(approx(r, want), Object.keys(want)));
    expect({ token: token.address, results: got }).toEqual({ token: token.address, results: [want] });
  }
  const trending = e.tokens
    .map((token) => ({ address: token.address, volumeUsd: sumUsd(tradesOf(e, token.address)), trades: tradesOf(e, token.address).length }))
    .filter((x) => x.volumeUsd > 0)
    .sort((a, b) => b.volumeUsd - a.volumeUsd || (a.address < b.address ? -1 : 1));
  const res = await t.http.get('/v1/market/trending?window=24h&limit=100');
  expect(res.status).toBe(200);
  const got = (res.body.tokens as Record<string, unknown>[]).map((g, i) => pick(approx(g, trending[i] ?? {}), ['address', 'volumeUsd', 'trades']));
  expect(got).toEqual(trending);
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
