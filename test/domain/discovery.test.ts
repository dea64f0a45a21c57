/** The rules of discovery: rankings, list items, the liquidity filter and search matching. */
import { describe, expect, it } from 'vitest';
import { MIN_MOVER_TRADES, RANKINGS, discoveryItem, insertSorted, matchKind, topWithLiquidity, type Ranked } from '../../src/domain/discovery.js';
import { NO_TRADES, priceChangePct, windowFigures } from '../../src/domain/windows.js';

const token = (address: string, liquidityUsd = 1000) => ({
  address,
  symbol: address.toUpperCase(),
  name: `Token ${address}`,
  priceUsd: 2,
  circulatingSupply: 1000,
  createdAt: 1_700_000_000,
  liquidityUsd,
});
const entry = (address: string, f: Partial<Ranked['f']>, liquidityUsd = 1000): Ranked => ({ t: token(address, liquidityUsd), f: { ...NO_TRADES, ...f } });
const rank = (kind: keyof typeof RANKINGS, entries: Ranked[]) =>
  entries
    .filter(RANKINGS[kind].holds)
    .sort(RANKINGS[kind].order)
    .map((e) => e.t.address);

describe('RANKINGS', () => {
  const entries = [
    entry('c', { volumeUsd: 50, trades: MIN_MOVER_TRADES, priceChangePct: 10 }),
    entry('a', { volumeUsd: 50, trades: MIN_MOVER_TRADES, priceChangePct: -5 }),
    entry('b', { volumeUsd: 80, trades: MIN_MOVER_TRADES - 1, priceChangePct: 90 }),
    entry('d', { volumeUsd: 0, trades: 0, priceChangePct: null }),
    entry('e', { volumeUsd: 10, trades: 20, priceChangePct: 10 }),
    entry('f', { volumeUsd: 10, trades: 20, priceChangePct: null }),
  ];

  it('orders trending by volume, ties by address, without tokens that have no volume', () => {
    expect(rank('trending', entries)).toEqual(['b', 'a', 'c', 'e', 'f']);
  });

  it('ranks gainers and losers among tokens with enough trades and a change, ties by address', () => {
    expect(rank('gainers', entries)).toEqual(['c', 'e', 'a']);
    expect(rank('losers', entries)).toEqual(['a', 'c', 'e']);
  });
});

describe('insertSorted', () => {
  it('puts an entry at its place in a sorted list', () => {
    const list = [1, 3, 3, 7];
    insertSorted(list, 3, (a, b) => a - b);
    insertSorted(list, 0, (a, b) => a - b);
    insertSorted(list, 9, (a, b) => a - b);
    expect(list).toEqual([0, 1, 3, 3, 3, 7, 9]);
  });

  it('keeps a ranking equal to sorting it again', () => {
    const list: Ranked[] = [];
    const order = RANKINGS.trending.order;
    for (const [i, v] of [5, 1, 9, 1, 7, 3].entries()) insertSorted(list, entry(`t${i}`, { volumeUsd: v }), order);
    expect(list.map((e) => e.t.address)).toEqual(['t2', 't4', 't0', 't5', 't1', 't3']);
  });
});

describe('discoveryItem and topWithLiquidity', () => {
  it('shows the token with its figures, market cap = price x circulating supply', () => {
    expect(discoveryItem(3, token('a'), { priceChangePct: 12.5, volumeUsd: 40, trades: 4 })).toEqual({
      rank: 3,
      address: 'a',
      symbol: 'A',
      name: 'Token a',
      priceUsd: 2,
      priceChangePct: 12.5,
      volumeUsd: 40,
      trades: 4,
      liquidityUsd: 1000,
      marketCapUsd: 2000,
      createdAt: 1_700_000_000,
    });
    expect(discoveryItem(1, { ...token('a'), circulatingSupply: null }, NO_TRADES).marketCapUsd).toBeNull();
  });

  it('takes the first tokens with enough liquidity, ranked from 1 in the ranking order', () => {
    const ranking = [
      entry('a', { volumeUsd: 9 }, 10),
      entry('b', { volumeUsd: 8 }, 500),
      entry('c', { volumeUsd: 7 }, 100),
      entry('d', { volumeUsd: 6 }, 1000),
    ];
    expect(topWithLiquidity(ranking, 100, 2).map((i) => [i.rank, i.address])).toEqual([
      [1, 'b'],
      [2, 'c'],
    ]);
    expect(topWithLiquidity(ranking, 0, 10).map((i) => i.address)).toEqual(['a', 'b', 'c', 'd']);
    expect(topWithLiquidity(ranking, 5000, 10)).toEqual([]);
  });
});

describe('matchKind', () => {
  const x = { address: 'Addr1', sym: 'sol', name: 'solar otter' };
  it('prefers exact address, then exact symbol, symbol prefix and name', () => {
    expect(matchKind(x, 'zzz', 'Addr1')).toBe(0);
    expect(matchKind(x, 'sol', null)).toBe(1);
    expect(matchKind(x, 'so', null)).toBe(2);
    expect(matchKind(x, 'otter', null)).toBe(3);
    expect(matchKind(x, 'yak', null)).toBe(-1);
  });
});

describe('window figures', () => {
  it('take the statistics and the change from the base price', () => {
    expect(windowFigures({ volumeUsd: 30, buyVolumeUsd: 20, sellVolumeUsd: 10, trades: 3, buys: 2, sells: 1 }, 3, 2)).toEqual({
      priceChangePct: 50,
      volumeUsd: 30,
      buyVolumeUsd: 20,
      sellVolumeUsd: 10,
      trades: 3,
      buys: 2,
      sells: 1,
    });
  });

  it('have no change without a positive base price or a price', () => {
    expect(priceChangePct(2, 0)).toBeNull();
    expect(priceChangePct(2, null)).toBeNull();
    expect(priceChangePct(null, 1)).toBeNull();
    expect(priceChangePct(1, 2)).toBe(-50);
  });
});
