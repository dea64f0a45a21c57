/**
 * Reads what the indexer stored through the HTTP API of makeTestApp() and checks it against the
 * naive oracle (oracle.ts): every trade of every token (fields, order, record numbers in chain
 * order), the one-minute bars of /udf/history against a naive aggregation of the oracle's trades,
 * the overview and its 24h window, the markets, and the holders. Numbers within 1e-9 relative;
 * everything else exact. Shared by the end-to-end, fault and kill-resume tests.
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

/** One-minute bars of /udf/history, equal to aggregating the oracle's trades in chain order. */
export async function expectBars(t: TestApp, e: Expected): Promise<void> {
  for (const token of e.tokens) {
    const trades = tradesOf(e, token.address);
    if (trades.length === 0) continue;
    const buckets = new Map<number, { o: number; h: number; l: number; c: number; v: number }>();
    for (const x of trades) {
      const b = Math.floor(x.blockTime / 60) * 60;
      const bar = buckets.get(b);
      if (bar === undefined) buckets.set(b, { o: x.priceUsd, h: x.priceUsd, l: x.priceUsd, c: x.priceUsd, v: x.volumeUsd });
      else Object.assign(bar, { h: Math.max(bar.h, x.priceUsd), l: Math.min(bar.l, x.priceUsd), c: x.priceUsd, v: bar.v + x.volumeUsd });
    }
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

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
