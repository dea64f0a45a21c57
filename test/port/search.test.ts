/** Port contract: the /v1/search index and the UDF symbols repo (lookup, pairs, ranked search, exchanges). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A, B, MA2, MB, openPortStore, type PortStore } from './fixture.js';

let t: PortStore;
beforeAll(async () => {
  t = await openPortStore();
});
afterAll(async () => {
  await t.close();
});

const alpha = () => ({ id: t.idA, address: A, sym: 'alpha', name: 'alpha coin' });
const beta = () => ({ id: t.idB, address: B, sym: 'beta', name: 'beta dollar' });

describe('searchIndex', () => {
  it('finds tokens by address, symbol, symbol prefix and address order, folded, counting rows read', async () => {
    const before = await t.repos.searchIndex.rowsRead();
    expect(await t.repos.searchIndex.byAddress(A)).toEqual(alpha());
    expect(await t.repos.searchIndex.byAddress('nothing')).toBeUndefined();
    expect(await t.repos.searchIndex.bySymbol('beta', '', 10)).toEqual([beta()]);
    expect(await t.repos.searchIndex.bySymbol('beta', B, 10)).toEqual([]);
    expect(await t.repos.searchIndex.bySymbolPrefix('al', { sym: '', address: '' }, 10)).toEqual([alpha()]);
    expect(await t.repos.searchIndex.bySymbolPrefix('al', { sym: 'alpha', address: A }, 10)).toEqual([]);
    expect(await t.repos.searchIndex.inAddressOrder('', 10)).toEqual([alpha(), beta()]);
    expect(await t.repos.searchIndex.inAddressOrder(A, 1)).toEqual([beta()]);
    expect((await t.repos.searchIndex.rowsRead()) - before).toBe(6);
  });

  it('finds names by substring: three characters and more by the name index, shorter by grams', async () => {
    expect(await t.repos.searchIndex.byName('oll', 0, 10)).toEqual([beta()]);
    expect(await t.repos.searchIndex.byName('a c', 0, 10)).toEqual([alpha()]);
    expect(await t.repos.searchIndex.byName('coin', t.idA, 10)).toEqual([]);
    expect(await t.repos.searchIndex.byName('\u0001ab', 0, 10)).toEqual([]);
    expect(await t.repos.searchIndex.byShortName('a', 0, 10)).toEqual([alpha(), beta()].sort((x, y) => x.id - y.id));
    expect(await t.repos.searchIndex.byShortName('do', 0, 10)).toEqual([beta()]);
  });
});

describe('symbols', () => {
  it('resolve names a token by address, symbol (any case) or EXCHANGE:SYMBOL', async () => {
    const a = await t.repos.symbols.resolve(A);
    expect(a).toMatchObject({ exchange: 'raydium', token: { id: t.idA, address: A, symbol: 'ALPHA', liquidityUsd: 6000, topDex: 'raydium', priceUsd: 3 } });
    expect((await t.repos.symbols.resolve('beta'))?.token.id).toBe(t.idB);
    expect(await t.repos.symbols.resolve('orca:ALPHA')).toMatchObject({ exchange: 'orca', token: { id: t.idA } });
    expect(await t.repos.symbols.resolve('orca:BETA')).toBeNull();
    expect(await t.repos.symbols.resolve('solana:BETA')).toMatchObject({ exchange: 'raydium', token: { id: t.idB } });
    expect(await t.repos.symbols.resolve('  ')).toBeNull();
  });

  it('pair names a market by address, with an optional matching exchange', async () => {
    expect(await t.repos.symbols.pair(MA2)).toMatchObject({ token: { id: t.idA }, market: { address: MA2, dex: 'orca', quoteSymbol: 'SOL' } });
    expect(await t.repos.symbols.pair(`ORCA:${MA2}`)).toMatchObject({ market: { address: MA2 } });
    expect(await t.repos.symbols.pair(`raydium:${MA2}`)).toBeNull();
    expect(await t.repos.symbols.pair(A)).toBeNull();
  });

  it('search ranks exact matches, then prefixes, then names; each by liquidity', async () => {
    const found = async (query: string, exchange: string | null = null) =>
      (await t.repos.symbols.search({ query, exchange, limit: 10 })).map((r) => [r.token.symbol, r.exchange]);
    expect(await found('')).toEqual([
      ['ALPHA', 'raydium'],
      ['BETA', 'raydium'],
    ]);
    expect(await found('alp')).toEqual([['ALPHA', 'raydium']]);
    expect(await found('dollar')).toEqual([['BETA', 'raydium']]);
    expect(await found('', 'orca')).toEqual([['ALPHA', 'orca']]);
    expect(await found(MB)).toEqual([]);
    expect(await found('PortToken')).toEqual([
      ['ALPHA', 'raydium'],
      ['BETA', 'raydium'],
    ]);
  });

  it('exchanges lists every dex once, sorted', async () => {
    expect(await t.repos.symbols.exchanges()).toEqual(['orca', 'raydium']);
  });
});
