import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { decodeTradeCursor, encodeTradeCursor, type CursorScope } from '../../src/domain/cursor.js';

const secret = randomBytes(32);
const scope: CursorScope = { token: 'So11111111111111111111111111111111111111112', side: null, wallet: null };
const position = fc.record({
  blockTime: fc.integer({ min: 0, max: 253402300799 }),
  id: fc.integer({ min: 0, max: 2 ** 48 - 1 }),
  bound: fc.integer({ min: 0, max: 2 ** 48 - 1 }),
});

describe('trade cursors', () => {
  it('decode to what was encoded, as base64url', () => {
    fc.assert(
      fc.property(position, (c) => {
        const s = encodeTradeCursor(secret, scope, c);
        expect(s).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodeTradeCursor(secret, scope, s)).toEqual(c);
      }),
    );
  });

  it('are refused when any character changes, whatever the position', () => {
    fc.assert(
      fc.property(position, fc.nat(), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), (c, at, ch) => {
        const s = encodeTradeCursor(secret, scope, c);
        const pos = at % s.length;
        fc.pre(s[pos] !== ch);
        expect(decodeTradeCursor(secret, scope, s.slice(0, pos) + ch + s.slice(pos + 1))).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it('are refused under another secret, token, side or wallet', () => {
    fc.assert(
      fc.property(position, (c) => {
        const s = encodeTradeCursor(secret, scope, c);
        expect(decodeTradeCursor(randomBytes(32), scope, s)).toBeNull();
        expect(decodeTradeCursor(secret, { ...scope, token: scope.token.slice(0, -1) + '3' }, s)).toBeNull();
        expect(decodeTradeCursor(secret, { ...scope, side: 'buy' }, s)).toBeNull();
        expect(decodeTradeCursor(secret, { ...scope, wallet: scope.token }, s)).toBeNull();
      }),
      { numRuns: 50 },
    );
  });

  it('refuses to encode values that do not fit', () => {
    expect(() => encodeTradeCursor(secret, scope, { blockTime: -1, id: 0, bound: 0 })).toThrow(RangeError);
    expect(() => encodeTradeCursor(secret, scope, { blockTime: 0, id: 2 ** 48, bound: 0 })).toThrow(RangeError);
  });
});
