/**
 * The pure rules of the UDF datafeed's names on several chains (src/domain/udf-chains.ts), and the
 * cost of their SQL on SQLite: the chain-filtered statements read through the same indexes as the
 * statements without a chain (docs/api.md, TradingView UDF datafeed: cost).
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  addressForms,
  addressKeys,
  chainLookups,
  chainPairName,
  describedOnChain,
  keyFilter,
  keyPasses,
  NO_KEY_FILTER,
  searchChain,
  searchItemOnChain,
} from '../../src/domain/udf-chains.js';
import { oneChain, storeKey, type Chains } from '../../src/domain/chains.js';
import { SYMBOLS_CHAIN_SQL } from '../../src/store/sqlite/symbols-repo.js';
import { openStore, type Store } from '../../src/store/sqlite/db.js';

const CHAINS: Chains = { list: ['solana', 'base', 'ethereum'], defaultChain: 'solana' };
const EVM = '0x4200000000000000000000000000000000000006';
const SOL = 'So11111111111111111111111111111111111111112';

describe('chainLookups', () => {
  it('reads CHAIN:NAME on that chain in any letter case, EXCHANGE:NAME on that dex, then the whole name', () => {
    expect(chainLookups(`base:${EVM}`, CHAINS)).toEqual([
      { name: EVM, dex: '', chain: 'base' },
      { name: `base:${EVM}`, dex: '', chain: null },
    ]);
    expect(chainLookups(' ETHEREUM:weth ', CHAINS)[0]).toEqual({ name: 'weth', dex: '', chain: 'ethereum' });
    expect(chainLookups('Orca:BONK', CHAINS)[0]).toEqual({ name: 'BONK', dex: 'Orca', chain: null });
    expect(chainLookups('BONK', CHAINS)).toEqual([{ name: 'BONK', dex: '', chain: null }]);
    expect(chainLookups('  ', CHAINS)).toEqual([]);
  });

  it('keeps one chain exactly as before chains: its name means every exchange, with no chain filter', () => {
    expect(chainLookups('SOLANA:BONK', oneChain())[0]).toEqual({ name: 'BONK', dex: '', chain: null });
    expect(chainLookups('raydium:BONK', oneChain())[0]).toEqual({ name: 'BONK', dex: 'raydium', chain: null });
  });
});

describe('addressKeys and chainPairName', () => {
  it('gives the store key to find exactly, and the key to fold for an upper-cased address', () => {
    expect(addressKeys(EVM, 'base', CHAINS)).toEqual({ exact: `base:${EVM}`, folded: `base:${EVM}` });
    expect(addressKeys(EVM.toUpperCase().replace('0X', '0x'), 'ethereum', CHAINS).exact).toBe(`ethereum:${EVM}`);
    expect(addressKeys('0X' + EVM.slice(2).toUpperCase(), 'base', CHAINS)).toEqual({ exact: null, folded: `base:0X${EVM.slice(2).toUpperCase()}` });
    expect(addressKeys(`base:${EVM}`, null, CHAINS).exact).toBe(`base:${EVM}`);
    expect(addressKeys(`solana:${SOL}`, null, CHAINS).exact).toBe(SOL);
    expect(addressKeys(SOL, null, CHAINS)).toEqual({ exact: SOL, folded: SOL });
    expect(addressKeys(`polygon:${EVM}`, null, CHAINS)).toEqual({ exact: null, folded: null });
    expect(addressKeys('BONK', 'base', CHAINS)).toEqual({ exact: null, folded: null });
  });

  it('names a market by chain:address, CHAIN:ADDRESS or EXCHANGE:ADDRESS', () => {
    expect(chainPairName(`base:${EVM}`, CHAINS)).toEqual({ dex: '', key: `base:${EVM}` });
    expect(chainPairName(`BASE:${EVM}`, CHAINS)).toEqual({ dex: '', key: `base:${EVM}` });
    expect(chainPairName(`uniswap:${EVM}`, CHAINS)).toEqual({ dex: 'uniswap', key: EVM });
    expect(chainPairName(SOL, CHAINS)).toEqual({ dex: '', key: SOL });
    expect(chainPairName('nope', CHAINS)).toEqual({ dex: '', key: null });
  });
});

describe('keyFilter', () => {
  it("keeps exactly one chain's keys, as keyChain reads them (property)", () => {
    const chain = fc.constantFrom(...CHAINS.list);
    const address = fc.oneof(fc.constant(EVM), fc.constant(SOL), fc.stringMatching(/^0x[0-9a-f]{40}$/), fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/));
    fc.assert(
      fc.property(chain, chain, address, (on, asked, a) => {
        const key = storeKey({ chain: on, address: a }, CHAINS);
        expect(keyPasses(key, keyFilter(asked, CHAINS))).toBe(on === asked);
        expect(keyPasses(key, keyFilter(null, CHAINS))).toBe(true);
      }),
    );
  });

  it('filters nothing on one chain', () => {
    expect(keyFilter('solana', oneChain())).toBe(NO_KEY_FILTER);
  });
});

describe('search', () => {
  it('reads a chain named as the exchange as that chain; chain= naming another matches nothing', () => {
    expect(searchChain(null, 'Base', CHAINS)).toEqual({ chain: 'base', exchange: null });
    expect(searchChain('base', 'base', CHAINS)).toEqual({ chain: 'base', exchange: null });
    expect(searchChain('ethereum', 'base', CHAINS)).toBe('conflict');
    expect(searchChain('base', 'uniswap', CHAINS)).toEqual({ chain: 'base', exchange: 'uniswap' });
    expect(searchChain(null, 'solana', oneChain())).toEqual({ chain: null, exchange: 'solana' });
  });

  it('matches an address on every chain, or on the chain asked', () => {
    expect(addressForms('0x42', null, CHAINS)).toEqual(['0x42', 'base:0x42', 'ethereum:0x42']);
    expect(addressForms('0x42', 'ethereum', CHAINS)).toEqual(['ethereum:0x42']);
    expect(addressForms('0x42', null, oneChain())).toEqual(['0x42']);
  });

  it('names the chain in descriptions and search items only when there are several', () => {
    expect(describedOnChain('Wrapped Ether', `base:${EVM}`, CHAINS)).toBe('Wrapped Ether (base)');
    expect(describedOnChain('Wrapped SOL', SOL, CHAINS)).toBe('Wrapped SOL (solana)');
    expect(describedOnChain('Wrapped SOL', SOL, oneChain())).toBe('Wrapped SOL');
    const item = { symbol: 'WETH', full_name: 'uniswap:WETH', description: 'Wrapped Ether', exchange: 'uniswap', ticker: `ethereum:${EVM}`, type: 'crypto' };
    expect(searchItemOnChain(item, CHAINS)).toEqual({ ...item, description: 'Wrapped Ether (ethereum)', chain: 'ethereum' });
    expect(searchItemOnChain(item, oneChain())).toBe(item);
  });
});

describe('query plans of the chain-filtered statements (SQLite)', () => {
  let store: Store | undefined;
  afterEach(() => store?.close());
  const chain = { cfrom: 'base:', cto: 'base;', plain: 0 };
  const params: Record<keyof typeof SYMBOLS_CHAIN_SQL, unknown[]> = {
    tokenById: [1],
    idByAddress: ['abc'],
    marketByAddress: ['abc'],
    idsByAddressNocase: ['ABC'],
    idBySymbol: [{ dex: '', symbol: 'BONK', ...chain }],
    listedOn: [1, 'orca'],
    top: [{ dex: '', limit: 30, ...chain }],
    symbolExact: [{ dex: 'orca', q: 'BO', limit: 30, ...chain }],
    symbolPrefix: [{ dex: '', q: 'BO', prefix: 'BO%', limit: 30, ...chain }],
    addressExact: [{ dex: '', q: 'ABCD', limit: 30, ...chain }],
    addressPrefix: [{ dex: '', q: 'ABCD', prefix: 'ABCD%', limit: 30, ...chain }],
    names: [{ dex: '', match: '"super b"*', limit: 30, ...chain }],
    dexes: [],
    symbolPrefixCount: [{ dex: '', prefix: 'B%', cap: 2000 }],
    symbolPrefixWalk: [{ dex: '', q: 'B', prefix: 'B%', limit: 30, budget: 3000, ...chain }],
    namesCount: [{ match: '"b"*', cap: 2000 }],
    namesWalk: [{ dex: '', ...chain }],
  };

  it('reads every table through an index, never a full scan, as the statements without a chain', () => {
    store = openStore(':memory:');
    for (const [name, sql] of Object.entries(SYMBOLS_CHAIN_SQL) as [keyof typeof SYMBOLS_CHAIN_SQL, string][]) {
      const plan = store.db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params[name])
        .map((r) => (r as { detail: string }).detail);
      const scans = plan.filter((d) => d.startsWith('SCAN ') && !/^SCAN (\w+ VIRTUAL TABLE INDEX|d$|\(subquery-\d+\)$|CONSTANT ROW$)/.test(d));
      expect(scans, `${name}: ${plan.join(' | ')}`).toEqual([]);
      for (const d of plan.filter((x) => /^SEARCH (tokens|t|udf_listing|l|markets|m)\b/.test(x))) {
        expect(d, name).toMatch(/USING (COVERING INDEX|INDEX|PRIMARY KEY|INTEGER PRIMARY KEY)/);
      }
    }
  });
});
