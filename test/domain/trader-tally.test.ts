import { describe, expect, it } from 'vitest';
import { TRADER_ORDERS, applyTrade, figuresOf, newTally } from '../../src/domain/trader-tally.js';

describe('trader tally', () => {
  it('sums buys and sells, nets sells minus buys, and counts each side', () => {
    const t = newTally('w');
    applyTrade(t, true, 10, 1);
    applyTrade(t, false, 4, 1);
    applyTrade(t, true, 2.5, 1);
    expect(figuresOf(t)).toEqual({ wallet: 'w', volumeUsd: 16.5, buyVolumeUsd: 12.5, sellVolumeUsd: 4, netUsd: -8.5, trades: 3, buys: 2, sells: 1 });
  });

  it('stays exact when a huge trade leaves and small ones remain (no drift from subtraction)', () => {
    const t = newTally('w');
    applyTrade(t, true, 1e12, 1);
    const small = Array.from({ length: 1000 }, (_, i) => 0.01 * (i % 7) + 0.001);
    for (const v of small) applyTrade(t, true, v, 1);
    applyTrade(t, true, 1e12, -1);
    // a plain running sum would keep an error of about 1e12 * 2^-52 (1e-4): here it is gone
    const exact = small.reduce((a, b) => a + b, 0);
    expect(Math.abs(figuresOf(t).buyVolumeUsd - exact)).toBeLessThan(exact * 1e-12);
  });

  it('is exactly zero on a side once its last trade left', () => {
    const t = newTally('w');
    applyTrade(t, false, 0.1, 1);
    applyTrade(t, false, 0.2, 1);
    applyTrade(t, false, 0.1, -1);
    applyTrade(t, false, 0.2, -1);
    expect(figuresOf(t)).toMatchObject({ sellVolumeUsd: 0, trades: 0, sells: 0 });
  });

  it('orders each sort descending with ties by wallet ascending', () => {
    const a = newTally('a');
    const b = newTally('b');
    applyTrade(a, true, 5, 1);
    applyTrade(b, false, 5, 1);
    expect(TRADER_ORDERS.volume(a, b)).toBeLessThan(0); // same volume: a first
    expect(TRADER_ORDERS.trades(b, a)).toBeGreaterThan(0);
    expect(TRADER_ORDERS.net(b, a)).toBeLessThan(0); // b sold: net +5 ahead of -5
  });
});
