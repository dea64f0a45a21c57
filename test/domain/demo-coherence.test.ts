// The demo set as a trader would read it: the default set (20 tokens, 30 days) checked record by
// record, and a smaller set checked through the API answers people see.
import { describe, expect, it } from 'vitest';
import { demoRecords, demoTokens, SOL_ADDRESS, USDC_ADDRESS } from '../../src/domain/demo-data.js';
import type { HolderRecord, MarketRecord, TokenRecord, TradeRecord } from '../../src/domain/records.js';
import { DEMO_DEFAULTS, loadDemo } from '../../src/services/demo.js';
import { makeTestApp } from '../helpers/make-test-app.js';

const until = 1_790_000_000;
const opts = { ...DEMO_DEFAULTS, until };
const records = [...demoRecords(opts)];
const tokens = records.filter((r): r is TokenRecord => r.type === 'token');
const markets = records.filter((r): r is MarketRecord => r.type === 'market');
const holders = records.filter((r): r is HolderRecord => r.type === 'holder');
const trades = records.filter((r): r is TradeRecord => r.type === 'trade');
const byToken = <T extends { token: string }>(list: T[]) => {
  const map = new Map<string, T[]>();
  for (const r of list) {
    const found = map.get(r.token);
    if (found) found.push(r);
    else map.set(r.token, [r]);
  }
  return map;
};
const grouped = new Map<unknown[], Map<string, unknown[]>>();
const of = <T extends { token: string }>(list: T[], address: string): T[] => {
  if (!grouped.has(list)) grouped.set(list, byToken(list));
  return (grouped.get(list)!.get(address) ?? []) as T[];
};
const lastPrice = (address: string) => of(trades, address).at(-1)!.priceUsd;

describe('the default demo set', () => {
  it('uses made-up names, not those of real tokens', () => {
    const real = ['BONK', 'WIF', 'POPCAT', 'MEW', 'BOME', 'MOODENG', 'GIGA', 'PNUT', 'GOAT', 'JUP', 'RAY', 'ORCA', 'PYTH', 'JTO', 'SOL', 'USDC'];
    for (const t of tokens) expect(real).not.toContain(t.symbol);
    expect(new Set(tokens.map((t) => t.symbol)).size).toBe(tokens.length);
  });

  it('has a few large caps, a long tail of small ones and a couple of fresh launches', () => {
    const caps = tokens.map((t) => lastPrice(t.address) * t.circulatingSupply!);
    expect(caps.filter((c) => c >= 3e7).length).toBeGreaterThanOrEqual(2);
    expect(caps.filter((c) => c >= 3e7).length).toBeLessThanOrEqual(4);
    expect(caps.filter((c) => c < 2e6).length).toBeGreaterThanOrEqual(8);
    expect(Math.max(...caps) / Math.min(...caps)).toBeGreaterThan(1000);
    expect(tokens.filter((t) => t.createdAt > until - 2 * 86400).length).toBeGreaterThanOrEqual(2);
  });

  it('gives each token a market cap of price x circulating supply above its liquidity', () => {
    const models = demoTokens(opts);
    for (const t of tokens) {
      const model = models.find((m) => m.address === t.address)!;
      expect(lastPrice(t.address)).toBeCloseTo(model.price, 12);
      expect(t.circulatingSupply!).toBeLessThanOrEqual(t.totalSupply!);
      const cap = lastPrice(t.address) * t.circulatingSupply!;
      const liquidity = of(markets, t.address).reduce((s, m) => s + m.liquidityUsd, 0);
      expect(liquidity, t.symbol).toBeGreaterThan(0);
      expect(cap / liquidity, t.symbol).toBeGreaterThanOrEqual(3);
    }
  });

  it('spreads holdings as a power law over hundreds to thousands of holders, within the supply', () => {
    for (const t of tokens) {
      const amounts = of(holders, t.address)
        .map((h) => h.amount)
        .sort((a, b) => b - a);
      expect(amounts.length, t.symbol).toBeGreaterThanOrEqual(100);
      expect(amounts.length, t.symbol).toBeLessThanOrEqual(5000);
      expect(
        amounts.reduce((s, a) => s + a, 0),
        t.symbol,
      ).toBeLessThanOrEqual(t.circulatingSupply!);
      const top = amounts[0]! / t.totalSupply!;
      expect(top, t.symbol).toBeGreaterThan(0.02);
      expect(top, t.symbol).toBeLessThan(0.3);
      expect(amounts[0]! / amounts[Math.floor(amounts.length / 2)]!, t.symbol).toBeGreaterThan(50);
    }
  });

  it('trades every token at a plausible rate over its life, in its own quote currency', () => {
    for (const t of tokens) {
      const own = of(trades, t.address);
      const from = Math.max(until - opts.days * 86400, t.createdAt + 120);
      const perHour = own.length / ((until - from) / 3600);
      expect(perHour, t.symbol).toBeGreaterThanOrEqual(0.5);
      expect(perHour, t.symbol).toBeLessThanOrEqual(300);
      const quote = new Map(of(markets, t.address).map((m) => [m.address, m.quoteAddress]));
      // Checked in plain code and reported once: an expect per trade would take seconds.
      const wrong = own.filter((tr) => {
        if (Math.abs(tr.amount * tr.priceUsd - tr.volumeUsd) > 1e-6 * tr.volumeUsd) return true;
        if (quote.get(tr.market) === USDC_ADDRESS) return tr.quoteAmount !== tr.volumeUsd;
        const sol = tr.volumeUsd / tr.quoteAmount;
        return quote.get(tr.market) !== SOL_ADDRESS || !(sol > 80 && sol < 300);
      });
      expect(wrong, t.symbol).toEqual([]);
    }
  });

  it('has no pile-up at the end: the last minute looks like any other', () => {
    const perSecond = new Map<number, number>();
    for (const tr of trades) perSecond.set(tr.blockTime, (perSecond.get(tr.blockTime) ?? 0) + 1);
    const lastMinute = trades.filter((tr) => tr.blockTime >= until - 60).length;
    const perMinute = trades.filter((tr) => tr.blockTime >= until - 86400).length / 1440;
    expect(lastMinute).toBeLessThanOrEqual(Math.max(8, perMinute * 4));
    for (let s = until - 60; s < until; s++) expect(perSecond.get(s) ?? 0).toBeLessThanOrEqual(4);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(6);
  });
});

describe('a demo set through the API', () => {
  it('shows caps, liquidity, holders and shares that add up', async () => {
    const t = makeTestApp();
    const small = { tokens: 8, days: 2, seed: 5, until };
    t.clock.set(until * 1000);
    loadDemo({ store: t.store, ingest: t.services.ingest }, small);
    for (const m of demoTokens(small)) {
      const o = (await t.http.get(`/v1/token/${m.address}/overview`).expect(200)).body;
      expect(o.marketCapUsd).toBeCloseTo(o.priceUsd * o.circulatingSupply, 6);
      expect(o.marketCapUsd).toBeGreaterThan(o.liquidityUsd);
      expect(o.holders).toBe(m.wallets.length);
      const h = (await t.http.get(`/v1/token/${m.address}/holders?limit=100`).expect(200)).body;
      const shares = h.holders.map((x: { percent: number }) => x.percent);
      expect(shares.reduce((a: number, b: number) => a + b, 0)).toBeLessThanOrEqual(100);
      expect(shares[0]).toBeGreaterThan(shares[99]);
    }
    t.close();
  });
});
