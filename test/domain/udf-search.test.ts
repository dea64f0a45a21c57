/** The UDF symbol rules around the store's reads: lookups, pair names, dex filters and hit ranking. */
import { describe, expect, it } from 'vitest';
import {
  dexAllows,
  dexKey,
  hitExchange,
  mayBeCasedAddress,
  pairName,
  rankHits,
  searchesAddressPrefix,
  symbolLookups,
  topDexOr,
  type SymbolHit,
} from '../../src/domain/udf-search.js';

const ADDR = '0x' + 'ab'.repeat(20);

describe('symbolLookups', () => {
  it('tries EXCHANGE:NAME under its dex first, then the whole name on any dex', () => {
    expect(symbolLookups(' Raydium:BONK ', 'solana')).toEqual([
      { name: 'BONK', dex: 'Raydium' },
      { name: 'Raydium:BONK', dex: '' },
    ]);
  });

  it('reads an empty exchange or the chain name as every dex', () => {
    expect(symbolLookups(':BONK', 'solana')).toEqual([
      { name: 'BONK', dex: '' },
      { name: ':BONK', dex: '' },
    ]);
    expect(symbolLookups('SOLANA:BONK', 'solana')[0]).toEqual({ name: 'BONK', dex: '' });
  });

  it('tries a bare name once, an empty one never, and nothing after a bare colon', () => {
    expect(symbolLookups('BONK', 'solana')).toEqual([{ name: 'BONK', dex: '' }]);
    expect(symbolLookups('   ', 'solana')).toEqual([]);
    expect(symbolLookups('Orca:', 'solana')).toEqual([{ name: 'Orca:', dex: '' }]);
  });
});

describe('pairName, dexKey and dexAllows', () => {
  it('splits a pair symbol into its dex filter and normalized address', () => {
    expect(pairName(` Orca:${ADDR.toUpperCase().replace('0X', '0x')} `, 'ethereum')).toEqual({ dex: 'Orca', address: ADDR });
    expect(pairName(ADDR, 'ethereum')).toEqual({ dex: '', address: ADDR });
    expect(pairName('Orca:not-an-address', 'ethereum')).toEqual({ dex: 'Orca', address: null });
  });

  it('keys the chain name and null as every dex, others as given', () => {
    expect(dexKey(null, 'solana')).toBe('');
    expect(dexKey('Solana', 'solana')).toBe('');
    expect(dexKey('Orca', 'solana')).toBe('Orca');
  });

  it('lets every market through an empty filter, else its dex in any case', () => {
    expect(dexAllows('', 'Orca')).toBe(true);
    expect(dexAllows('orca', 'Orca')).toBe(true);
    expect(dexAllows('Raydium', 'Orca')).toBe(false);
  });
});

describe('address-like queries', () => {
  it('tries another case only for what may be an address, and address prefixes from four characters', () => {
    expect(mayBeCasedAddress(ADDR.toUpperCase().replace('0X', '0x'))).toBe(true);
    expect(mayBeCasedAddress('BONK')).toBe(false);
    expect(searchesAddressPrefix('0xab')).toBe(true);
    expect(searchesAddressPrefix('0xa')).toBe(false);
  });
});

describe('topDexOr and hitExchange', () => {
  it("shows the chain for a token without markets, and a hit's own dex when it has one", () => {
    expect(topDexOr({ id: 1, topDex: '' }, 'solana')).toEqual({ id: 1, topDex: 'solana' });
    expect(topDexOr({ id: 1, topDex: 'Orca' }, 'solana')).toEqual({ id: 1, topDex: 'Orca' });
    expect(hitExchange({ id: 1, liq: 0, address: 'a', dex: '' }, 'Orca')).toBe('Orca');
    expect(hitExchange({ id: 1, liq: 0, address: 'a', dex: 'Raydium' }, 'Orca')).toBe('Raydium');
  });
});

describe('rankHits', () => {
  const hit = (id: number, liq: number, address: string): SymbolHit => ({ id, liq, address, dex: '' });

  it('orders each class by liquidity then address, keeps a token in its best class, and cuts at the limit', () => {
    const exact = [hit(3, 10, 'c')];
    const prefix = [hit(1, 5, 'b'), hit(3, 50, 'c'), hit(2, 5, 'a'), hit(4, 100, 'd')];
    const names = [hit(5, 1, 'e'), hit(1, 9, 'b')];
    expect(rankHits([exact, prefix, names], 10).map((h) => h.id)).toEqual([3, 4, 2, 1, 5]);
    expect(rankHits([[hit(3, 10, 'c')], [hit(4, 100, 'd'), hit(2, 5, 'a')]], 2).map((h) => h.id)).toEqual([3, 4]);
  });

  it('compares addresses in byte order, not by locale', () => {
    expect(rankHits([[hit(1, 1, 'b'), hit(2, 1, 'B'), hit(3, 1, 'a')]], 3).map((h) => h.address)).toEqual(['B', 'a', 'b']);
  });
});
