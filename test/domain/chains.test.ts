/**
 * Chains of a deployment (src/domain/chains.ts): the CHAINS/CHAIN settings, `chain:address`
 * against the default chain, and the `/udf` symbol name that is either a chain-qualified address
 * or EXCHANGE:SYMBOL; the store keys (docs/chains.md, How chains are stored) and how an answer
 * names a stored key.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  addressFields,
  chainKey,
  chainKeyRange,
  chainsFrom,
  chainTicker,
  keyAddress,
  keyChain,
  keyParts,
  oneChain,
  parseAddressKey,
  parseChainAddress,
  parseUdfSymbolName,
  showsChains,
  storeKey,
  type Chains,
} from '../../src/domain/chains.js';

const EVM = '0x4200000000000000000000000000000000000006';
const SOL = 'So11111111111111111111111111111111111111112';
const chains: Chains = { list: ['solana', 'base', 'ethereum'], defaultChain: 'solana' };

describe('chainsFrom', () => {
  it('defaults to solana, takes CHAIN alone as one chain, and CHAINS with its first as the default', () => {
    expect(chainsFrom({})).toEqual({ list: ['solana'], defaultChain: 'solana' });
    expect(chainsFrom({ chain: 'base' })).toEqual({ list: ['base'], defaultChain: 'base' });
    expect(chainsFrom({ chains: 'base, ethereum,solana' })).toEqual({ list: ['base', 'ethereum', 'solana'], defaultChain: 'base' });
    expect(chainsFrom({ chains: 'base,ethereum', chain: 'base' })).toEqual({ list: ['base', 'ethereum'], defaultChain: 'base' });
  });

  it('refuses a disagreeing default, a bad name and a repeated one', () => {
    expect(chainsFrom({ chains: 'base,ethereum', chain: 'ethereum' })).toEqual({
      error: "CHAIN is ethereum but CHAINS starts with base: the default chain is CHAINS' first; set one of them",
    });
    expect(chainsFrom({ chains: 'base,Ethereum' })).toEqual({
      error: 'CHAINS names "Ethereum", which is not a chain name (a-z, 0-9, -; starting with a letter; at most 32)',
    });
    expect(chainsFrom({ chains: 'base,,solana' })).toEqual({
      error: 'CHAINS names "", which is not a chain name (a-z, 0-9, -; starting with a letter; at most 32)',
    });
    expect(chainsFrom({ chains: 'base,solana,base' })).toEqual({ error: 'CHAINS names base twice' });
    expect(chainsFrom({ chain: '1chain' })).toEqual({ error: 'CHAIN "1chain" is not a chain name (a-z, 0-9, -; starting with a letter; at most 32)' });
  });
});

describe('parseChainAddress', () => {
  it('puts a plain address on the default chain and a qualified one on its chain, lower-casing EVM hex', () => {
    expect(parseChainAddress(SOL, chains)).toEqual({ chain: 'solana', address: SOL });
    expect(parseChainAddress(`base:${EVM.toUpperCase().replace('0X', '0x')}`, chains)).toEqual({ chain: 'base', address: EVM });
    expect(parseChainAddress(`ethereum:${EVM}`, chains)).toEqual({ chain: 'ethereum', address: EVM });
  });

  it('refuses an unknown chain and a malformed address', () => {
    expect(parseChainAddress(`optimism:${EVM}`, chains)).toEqual({ error: 'unknown chain "optimism" (chains: solana, base, ethereum)' });
    expect(parseChainAddress('base:0x12', chains)).toEqual({ error: 'not a token address on base' });
    expect(parseChainAddress('BONK', chains)).toEqual({ error: 'not a token address' });
    expect(parseChainAddress(`:${EVM}`, chains)).toEqual({ error: 'unknown chain "" (chains: solana, base, ethereum)' });
  });

  it('reads back every ticker it writes', () => {
    const address = fc.oneof(fc.constantFrom(SOL, EVM), fc.stringMatching(/^0x[0-9a-f]{40}$/));
    fc.assert(
      fc.property(fc.constantFrom(...chains.list), address, (chain, a) => {
        expect(parseChainAddress(chainTicker({ chain, address: a }, chains), chains)).toEqual({ chain, address: a });
      }),
    );
  });
});

describe('parseUdfSymbolName', () => {
  it('is an address when X is a chain and Y an address, else EXCHANGE:SYMBOL', () => {
    expect(parseUdfSymbolName(`base:${EVM}`, chains)).toEqual({ kind: 'address', chain: 'base', address: EVM });
    expect(parseUdfSymbolName('base:WETH', chains)).toEqual({ kind: 'exchange', exchange: 'base', symbol: 'WETH' });
    expect(parseUdfSymbolName(`raydium:${SOL}`, chains)).toEqual({ kind: 'exchange', exchange: 'raydium', symbol: SOL });
    expect(parseUdfSymbolName('raydium:BONK', chains)).toEqual({ kind: 'exchange', exchange: 'raydium', symbol: 'BONK' });
    expect(parseUdfSymbolName(SOL, chains)).toEqual({ kind: 'address', chain: 'solana', address: SOL });
    expect(parseUdfSymbolName('BONK', chains)).toEqual({ kind: 'plain', text: 'BONK' });
  });
});

describe('chainTicker and chainKey', () => {
  it('names the default chain by the plain address and keys every chain apart', () => {
    expect(chainTicker({ chain: 'solana', address: SOL }, chains)).toBe(SOL);
    expect(chainTicker({ chain: 'base', address: EVM }, chains)).toBe(`base:${EVM}`);
    expect(chainKey({ chain: 'base', address: EVM })).not.toBe(chainKey({ chain: 'ethereum', address: EVM }));
    expect(chainKey({ chain: 'solana', address: SOL })).toBe(`solana:${SOL}`);
  });
});

describe('store keys', () => {
  it('keys the default chain by the plain address and every other chain by chain:address', () => {
    expect(storeKey({ chain: 'solana', address: SOL }, chains)).toBe(SOL);
    expect(storeKey({ chain: 'base', address: EVM }, chains)).toBe(`base:${EVM}`);
    expect(storeKey({ chain: 'ethereum', address: EVM }, chains)).toBe(`ethereum:${EVM}`);
    // On a deployment whose default chain is base, base's key is plain and solana's is qualified.
    const baseFirst: Chains = { list: ['base', 'solana'], defaultChain: 'base' };
    expect(storeKey({ chain: 'base', address: EVM }, baseFirst)).toBe(EVM);
    expect(storeKey({ chain: 'solana', address: SOL }, baseFirst)).toBe(`solana:${SOL}`);
  });

  it('splits a key back into its chain and address', () => {
    expect(keyParts(SOL, chains)).toEqual({ chain: 'solana', address: SOL });
    expect(keyParts(`base:${EVM}`, chains)).toEqual({ chain: 'base', address: EVM });
    expect(keyParts(`ethereum:${EVM}`, chains)).toEqual({ chain: 'ethereum', address: EVM });
    expect(keyAddress(SOL)).toBe(SOL);
    expect(keyAddress(`base:${EVM}`)).toBe(EVM);
    expect(keyChain(SOL, chains)).toBe('solana');
    expect(keyChain(`ethereum:${EVM}`, chains)).toBe('ethereum');
    expect(keyChain(EVM, { list: ['base'], defaultChain: 'base' })).toBe('base');
  });

  it('reads back every key it makes, and never gives two chains one key', () => {
    const address = fc.oneof(fc.constantFrom(SOL, EVM), fc.stringMatching(/^0x[0-9a-f]{40}$/));
    fc.assert(
      fc.property(fc.constantFrom(...chains.list), fc.constantFrom(...chains.list), address, (a, b, addr) => {
        const key = storeKey({ chain: a, address: addr }, chains);
        expect(keyParts(key, chains)).toEqual({ chain: a, address: addr });
        expect(keyAddress(key)).toBe(addr);
        expect(keyChain(key, chains)).toBe(a);
        expect(storeKey({ chain: b, address: addr }, chains) === key).toBe(a === b);
      }),
    );
  });
});

describe('parseAddressKey', () => {
  it('turns what a client sends into the store key', () => {
    expect(parseAddressKey(SOL, chains)).toBe(SOL);
    expect(parseAddressKey(`solana:${SOL}`, chains)).toBe(SOL);
    expect(parseAddressKey(`base:${EVM.replace('0x42', '0X42').toUpperCase().replace('0X', '0x')}`, chains)).toBe(`base:${EVM}`);
    expect(parseAddressKey(`ethereum:${EVM}`, chains)).toBe(`ethereum:${EVM}`);
    // On one chain a plain EVM address is its own key, lower-cased.
    expect(parseAddressKey(EVM.toUpperCase().replace('0X', '0x'), oneChain('base'))).toBe(EVM);
  });

  it('refuses an unknown chain, a malformed address and a chain of another deployment', () => {
    expect(parseAddressKey(`polygon:${EVM}`, chains)).toEqual({ error: 'unknown chain "polygon" (chains: solana, base, ethereum)' });
    expect(parseAddressKey('ethereum:0xzz', chains)).toEqual({ error: 'not a token address on ethereum' });
    expect(parseAddressKey('not-an-address', chains)).toEqual({ error: 'not a token address' });
    expect(parseAddressKey(`base:${EVM}`, oneChain())).toEqual({ error: 'unknown chain "base" (chains: solana)' });
    expect(parseAddressKey(`${'x'.repeat(60)}:${EVM}`, chains)).toEqual({ error: `unknown chain "${'x'.repeat(40)}" (chains: solana, base, ethereum)` });
  });
});

describe('addressFields', () => {
  it('shows the key itself and no chain on a one-chain deployment', () => {
    expect(showsChains(oneChain())).toBe(false);
    expect(addressFields(SOL, oneChain())).toEqual({ address: SOL });
    expect(Object.keys(addressFields(SOL, oneChain()))).toEqual(['address']);
  });

  it('shows the plain address and its chain, in that order, on several', () => {
    expect(showsChains(chains)).toBe(true);
    expect(addressFields(SOL, chains)).toEqual({ address: SOL, chain: 'solana' });
    expect(addressFields(`base:${EVM}`, chains)).toEqual({ address: EVM, chain: 'base' });
    expect(JSON.stringify(addressFields(`ethereum:${EVM}`, chains))).toBe(`{"address":"${EVM}","chain":"ethereum"}`);
  });
});

describe('chainKeyRange', () => {
  it("is the range of a non-default chain's keys and null for the default chain", () => {
    expect(chainKeyRange('solana', chains)).toBeNull();
    expect(chainKeyRange('base', chains)).toEqual({ from: 'base:', to: 'base;' });
    expect(chainKeyRange('ethereum', chains)).toEqual({ from: 'ethereum:', to: 'ethereum;' });
  });

  it("holds exactly that chain's keys, in code point order", () => {
    const range = chainKeyRange('base', chains)!;
    const inRange = (k: string) => k >= range.from && k < range.to;
    expect(inRange(`base:${EVM}`)).toBe(true);
    expect(inRange(`base:${'0x' + 'f'.repeat(40)}`)).toBe(true);
    expect(inRange(`base-sepolia:${EVM}`)).toBe(false);
    expect(inRange(`ethereum:${EVM}`)).toBe(false);
    expect(inRange(EVM)).toBe(false);
    expect(inRange('base')).toBe(false);
    fc.assert(
      fc.property(fc.constantFrom(...chains.list, 'base-sepolia', 'basex'), fc.stringMatching(/^0x[0-9a-f]{40}$/), (chain, addr) => {
        const key = chain === 'solana' ? addr : `${chain}:${addr}`;
        expect(inRange(key)).toBe(chain === 'base');
      }),
    );
  });
});
