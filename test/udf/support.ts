/**
 * Fixtures for the UDF tests: a token with markets on named dexes, trades at given times, and a
 * naive candle reference built straight from trades (its own bucket arithmetic, on Date, so a bug
 * in src/domain/resolution.ts cannot hide in both).
 */
import { expect } from 'vitest';
import { aMarket, aToken, aTrade, homeMarket } from '../helpers/builders.js';
import type { TokenRecord, TradeRecord } from '../../src/domain/records.js';
import type { TestApp } from '../helpers/make-test-app.js';

/**
 * Ingests a token with one market per `liquidity` entry ({dex: liquidityUsd}), the first its home
 * market (the one addTrades' trades name); returns the token record.
 */
export function addToken(t: TestApp, over: Partial<TokenRecord> = {}, liquidity: Record<string, number> = { raydium: 10_000 }): TokenRecord {
  const token = aToken(over);
  t.ingest([token, ...Object.entries(liquidity).map(([dex, liquidityUsd], i) => (i === 0 ? homeMarket : aMarket)(token.address, { dex, liquidityUsd }))]);
  return token;
}

/** Ingests one trade per [blockTime, priceUsd, volumeUsd?]. */
export function addTrades(t: TestApp, token: string, rows: readonly (readonly [number, number, number?])[]): TradeRecord[] {
  const trades = rows.map(([blockTime, priceUsd, volumeUsd]) => aTrade(token, { blockTime, priceUsd, volumeUsd: volumeUsd ?? 1 }));
  t.ingest(trades);
  return trades;
}

const DAY = 86400;
const FIXED: Record<string, number> = {
  '1S': 1,
  '5S': 5,
  '15S': 15,
  '30S': 30,
  '1': 60,
  '5': 300,
  '15': 900,
  '30': 1800,
  '60': 3600,
  '240': 14400,
  '1D': DAY,
  D: DAY,
};

/** The start of the bucket holding t, computed the plain way. */
export function refBucket(resolution: string, t: number): number {
  const fixed = FIXED[resolution];
  if (fixed !== undefined) return Math.floor(t / fixed) * fixed;
  const d = new Date(t * 1000);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000;
  if (resolution === '1W' || resolution === 'W') return midnight - ((d.getUTCDay() + 6) % 7) * DAY;
  if (resolution === '1M' || resolution === 'M') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  throw new Error(`no reference for ${resolution}`);
}

export type RefTrade = { time: number; seq: number; price: number; volume: number };
export type RefBar = { t: number; o: number; h: number; l: number; c: number; v: number };

/** Bars of `trades` (seq = ingest order, which is id order) ascending by time. */
export function refBars(resolution: string, trades: readonly RefTrade[]): RefBar[] {
  const sorted = [...trades].sort((a, b) => a.time - b.time || a.seq - b.seq);
  const bars = new Map<number, RefBar>();
  for (const tr of sorted) {
    const t = refBucket(resolution, tr.time);
    const bar = bars.get(t);
    if (bar === undefined) bars.set(t, { t, o: tr.price, h: tr.price, l: tr.price, c: tr.price, v: tr.volume });
    else {
      bar.h = Math.max(bar.h, tr.price);
      bar.l = Math.min(bar.l, tr.price);
      bar.c = tr.price;
      bar.v += tr.volume;
    }
  }
  return [...bars.values()].sort((a, b) => a.t - b.t);
}

/** A /udf/history ok body as bars. */
export function barsOf(body: { t: number[]; o: number[]; h: number[]; l: number[]; c: number[]; v: number[] }): RefBar[] {
  return body.t.map((t, i) => ({ t, o: body.o[i]!, h: body.h[i]!, l: body.l[i]!, c: body.c[i]!, v: body.v[i]! }));
}

/** True when two volumes agree within 1e-9 relative (docs/api.md, Data and ingest). */
export const closeVolume = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)) + 1e-12;

/** Fails unless `actual` has the bars of `expected`: same times, exact OHLC, volume within 1e-9 relative. */
export function expectSameBars(actual: RefBar[], expected: RefBar[], label: string): void {
  expect(
    actual.map((b) => b.t),
    label,
  ).toEqual(expected.map((b) => b.t));
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    expect([a.o, a.h, a.l, a.c], `${label} bar ${e.t}`).toEqual([e.o, e.h, e.l, e.c]);
    expect(closeVolume(a.v, e.v), `${label} volume ${a.v} vs ${e.v}`).toBe(true);
  }
}
