/**
 * Chains of a deployment (src/domain/chains.ts): the CHAINS/CHAIN settings, `chain:address`
 * against the default chain, and the `/udf` symbol name that is either a chain-qualified address
 * or EXCHANGE:SYMBOL.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chainKey, chainsFrom, chainTicker, parseChainAddress, parseUdfSymbolName, type Chains } from '../../src/domain/chains.js';

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
