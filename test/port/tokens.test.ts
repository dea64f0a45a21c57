/** Port contract: the tokens, meta and stats repos, on whichever engine runs the suite. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A, B, D, NOW, openPortStore, type PortStore } from './fixture.js';

let t: PortStore;
beforeAll(async () => {
  t = await openPortStore();
});
afterAll(async () => {
  await t.close();
});

describe('tokens', () => {
  it('byAddress gives the stored row with its last trade and price', async () => {
    expect(await t.repos.tokens.byAddress(A)).toEqual({
      id: t.idA,
      address: A,
      symbol: 'ALPHA',
      name: 'Alpha Coin',
      decimals: 6,
      totalSupply: 1_000_000,
      circulatingSupply: 800_000,
      createdAt: D - 86400,
      logoUri: null,
      updatedAt: NOW,
      lastTradeAt: D + 130,
      priceUsd: 3,
    });
    expect(await t.repos.tokens.byAddress('PortUnknown1111111111111111111111111111111')).toBeUndefined();
  });

  it('byId gives the same row, and undefined for an unknown id', async () => {
    expect((await t.repos.tokens.byId(t.idB))!.address).toBe(B);
    expect(await t.repos.tokens.byId(t.idA + t.idB + 100)).toBeUndefined();
  });
});

describe('meta', () => {
  it('get, set and getOrCreate keep one value per key', async () => {
    expect(await t.repos.meta.get('port-test')).toBeUndefined();
    await t.repos.meta.set('port-test', 'one');
    expect(await t.repos.meta.get('port-test')).toBe('one');
    await t.repos.meta.set('port-test', 'two');
    expect(await t.repos.meta.get('port-test')).toBe('two');
    expect(await t.repos.meta.getOrCreate('port-made', () => 'made')).toBe('made');
    expect(await t.repos.meta.getOrCreate('port-made', () => 'again')).toBe('made');
  });
});

describe('stats', () => {
  it('counts tokens and trades, answers, and is not at its page limit', async () => {
    expect(await t.repos.stats.tokens()).toBe(2);
    expect(await t.repos.stats.trades()).toBe(4);
    expect(await t.repos.stats.answers()).toBe(true);
    expect(await t.repos.stats.atPageLimit()).toBe(false);
    expect(await t.repos.stats.pendingDeliveries()).toBe(0);
    expect(await t.repos.stats.sizeBytes()).toBeGreaterThan(0);
  });
});
