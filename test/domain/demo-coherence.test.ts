// The demo set as a trader would read it: the default set (20 tokens, 30 days) checked record by
// record, and a smaller set checked through the API answers people see.
import { describe, expect, it } from 'vitest';
import { demoActivities, demoLiveRates, demoRecords, demoTokens, SOL_ADDRESS, USDC_ADDRESS } from '../../src/domain/demo-data.js';
import { LIVE_SECONDS, tradesWithin } from '../../src/domain/demo-activity.js';
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
/** Whether a count drawn around `mean` is within four standard deviations of it (plus rounding). */
const near = (count: number, mean: number) => Math.abs(count - mean) <= 4 * Math.sqrt(mean) + 2;
const within = (list: TradeRecord[], from: number, to: number) => list.filter((tr) => tr.blockTime >= from && tr.blockTime < to);

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

  it('trades every token at a plausible quiet rate in the past and a busier live rate at the end', () => {
    const models = demoTokens(opts);
    const lastDay = until - 2 * 86400;
    for (const m of models) {
      const t = tokens.find((x) => x.address === m.address)!;
      const own = of(trades, t.address);
      const from = Math.max(until - opts.days * 86400, t.createdAt + 120);
      // The quiet past (before the last two days, for the tokens that lived then).
      if (from < lastDay - 86400) {
        const quiet = within(own, from, lastDay).length / ((lastDay - from) / 3600);
        expect(quiet, t.symbol).toBeGreaterThanOrEqual(0.3);
        expect(quiet, t.symbol).toBeLessThanOrEqual(40);
      }
      const lastHour = within(own, until - 3600, until).length;
      expect(lastHour, t.symbol).toBeGreaterThanOrEqual(3);
      expect(lastHour, t.symbol).toBeLessThanOrEqual(3000);
      expect(lastHour / Math.max(1, within(own, lastDay - 86400, lastDay).length / 24), t.symbol).toBeGreaterThan(2);
    }
  });

  it('ends each token at the live rate the demo feed keeps: the model, the last hours and the feed agree', () => {
    const models = demoTokens(opts);
    const activities = demoActivities(models, opts);
    const live = demoLiveRates(opts);
    let sum = 0;
    let mean = 0;
    models.forEach((m, i) => {
      const perSecond = live.get(m.address)!.perSecond;
      // Exact from the model's own numbers: the feed's rate is the history's rate over its last hours.
      expect(perSecond * 3600, m.symbol).toBeCloseTo(m.liveTradesPerHour, 9);
      expect(tradesWithin(activities[i]!, 3600), m.symbol).toBeCloseTo(m.liveTradesPerHour, 9);
      expect(tradesWithin(activities[i]!, LIVE_SECONDS), m.symbol).toBeCloseTo((m.liveTradesPerHour * LIVE_SECONDS) / 3600, 9);
      expect(live.get(m.address)!.medianTradeUsd, m.symbol).toBeCloseTo(m.liveMedianTradeUsd, 9);
      // And the drawn history follows it: its last hour and its last three hours.
      const own = of(trades, m.address);
      expect(near(within(own, until - 3600, until).length, m.liveTradesPerHour), m.symbol).toBe(true);
      expect(near(within(own, until - LIVE_SECONDS, until).length, (m.liveTradesPerHour * LIVE_SECONDS) / 3600), m.symbol).toBe(true);
      sum += within(own, until - 3600, until).length;
      mean += m.liveTradesPerHour;
    });
    // A few trades a second over the set, as the feed runs it.
    expect(mean / 3600).toBeGreaterThan(1.5);
    expect(mean / 3600).toBeLessThan(5);
    expect(near(sum, mean)).toBe(true);
  });

  it('gives the landing token (most USD in the last hour) a history long enough to chart', () => {
    const lastHour = within(trades, until - 3600, until);
    const volume = new Map<string, number>();
    for (const tr of lastHour) volume.set(tr.token, (volume.get(tr.token) ?? 0) + tr.volumeUsd);
    const top = [...volume].sort((a, b) => b[1] - a[1])[0]![0];
    const token = tokens.find((t) => t.address === top)!;
    expect(token.createdAt).toBeLessThan(until - opts.days * 86400);
    // More than 50 bars of 15 minutes over the last three days (the chart's first view).
    expect(new Set(within(of(trades, top), until - 3 * 86400, until).map((tr) => Math.floor(tr.blockTime / 900))).size).toBeGreaterThan(200);
  });

  it("trades in each pair's own quote currency, amount x price = value", () => {
    for (const t of tokens) {
      const own = of(trades, t.address);
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

  it('has no pile-up at the end: the last minute and second look like those before them', () => {
    const perSecond = new Map<number, number>();
    for (const tr of trades) perSecond.set(tr.blockTime, (perSecond.get(tr.blockTime) ?? 0) + 1);
    const live = demoTokens(opts).reduce((s, m) => s + m.liveTradesPerHour / 3600, 0);
    // A Poisson count of about `live` trades a second: the last minute, the busiest of the last
    // minute's seconds, and the busiest second of all (the old clamping put 578 in the last one).
    expect(near(within(trades, until - 60, until).length, live * 60)).toBe(true);
    for (let s = until - 60; s < until; s++) expect(perSecond.get(s) ?? 0).toBeLessThanOrEqual(Math.ceil(live + 5 * Math.sqrt(live)));
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(15);
    // The hour before the last one is as busy as the last (the live rate holds for three hours).
    expect(near(within(trades, until - 7200, until - 3600).length, live * 3600)).toBe(true);
  });
});

describe('a demo set through the API', () => {
  it('shows caps, liquidity, holders and shares that add up', async () => {
    const t = makeTestApp();
    const small = { tokens: 8, days: 2, seed: 5, until };
    t.clock.set(until * 1000);
    await loadDemo(t.services, small);
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
