/**
 * ERC-20 text answers (src/domain/erc20-text.ts): ABI strings, bytes32 symbols, and the
 * fallbacks of docs/indexer.md, Tokens; a property against viem's own ABI encoder.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeAbiParameters, stringToHex } from 'viem';
import { decodeDecimals, decodeErc20Text, fallbackSymbol, tokenText } from '../../src/domain/erc20-text.js';

const abiString = (s: string) => encodeAbiParameters([{ type: 'string' }], [s]);

describe('decodeErc20Text', () => {
  it('reads an ABI string', () => {
    expect(decodeErc20Text(abiString('USD Coin'), 128)).toBe('USD Coin');
  });
  it('reads a bytes32 padded with zeros (MKR style)', () => {
    expect(decodeErc20Text(stringToHex('MKR', { size: 32 }), 32)).toBe('MKR');
    expect(decodeErc20Text(stringToHex('Maker', { size: 32 }), 128)).toBe('Maker');
  });
  it('cuts text to the record limit', () => {
    expect(decodeErc20Text(abiString('A'.repeat(40)), 32)).toBe('A'.repeat(32));
  });
  it('answers null for nothing, garbage, control characters or bad UTF-8', () => {
    expect(decodeErc20Text('0x', 32)).toBeNull();
    expect(decodeErc20Text('0x1234', 32)).toBeNull();
    expect(decodeErc20Text(stringToHex('', { size: 32 }), 32)).toBeNull();
    expect(decodeErc20Text(abiString('a\u0001b'), 32)).toBeNull();
    expect(decodeErc20Text(`0x${'ff'.repeat(32)}`, 32)).toBeNull();
  });
  it('round-trips any printable string viem encodes', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }), (s) => {
        const printable = s.trim();
        fc.pre(printable !== '' && !/[\u0000-\u001f\u007f]/.test(printable));
        return decodeErc20Text(abiString(printable), 1000) === printable;
      }),
    );
  });
});

describe('fallbacks', () => {
  const address = '0xabcdef0123456789abcdef0123456789abcdef01';
  it('an unreadable symbol is the 6 hex digits after 0x upper-cased; an unreadable name is the symbol', () => {
    expect(fallbackSymbol(address)).toBe('ABCDEF');
    expect(tokenText(address, null, null)).toEqual({ symbol: 'ABCDEF', name: 'ABCDEF' });
    expect(tokenText(address, 'TKN', null)).toEqual({ symbol: 'TKN', name: 'TKN' });
    expect(tokenText(address, null, 'Token')).toEqual({ symbol: 'ABCDEF', name: 'Token' });
  });
});

describe('decodeDecimals', () => {
  it('reads a uint8 word; refuses nothing and more than 36', () => {
    expect(decodeDecimals(encodeAbiParameters([{ type: 'uint8' }], [6]))).toBe(6);
    expect(decodeDecimals('0x')).toBeNull();
    expect(decodeDecimals(encodeAbiParameters([{ type: 'uint256' }], [37n]))).toBeNull();
  });
});
