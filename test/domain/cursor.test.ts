/** Page cursors: one signed format for trade and event walks, and the event cursors issued before it. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeEventCursor, decodeTradeCursor, encodeEventCursor, encodeTradeCursor, type CursorScope } from '../../src/domain/cursor.js';

const secret = Buffer.alloc(32, 7);
const token = 'So11111111111111111111111111111111111111112';
const scope: CursorScope = { token, side: 'buy', wallet: null };

describe('trade cursors', () => {
  it('decode what they encode, for the same scope only', () => {
    const c = encodeTradeCursor(secret, scope, { blockTime: 1_700_000_000, id: 42, bound: 99 });
    expect(decodeTradeCursor(secret, scope, c)).toEqual({ blockTime: 1_700_000_000, id: 42, bound: 99 });
    expect(decodeTradeCursor(secret, { ...scope, side: 'sell' }, c)).toBeNull();
    expect(decodeTradeCursor(secret, { ...scope, wallet: 'w' }, c)).toBeNull();
    expect(decodeTradeCursor(secret, { ...scope, after: 1 }, c)).toBeNull();
    expect(decodeTradeCursor(Buffer.alloc(32, 8), scope, c)).toBeNull();
  });

  it('are the same strings as before events shared their format (clients hold them)', () => {
    expect(encodeTradeCursor(secret, scope, { blockTime: 1_700_000_000, id: 42, bound: 99 })).toBe('AQAAZVPxAAAAAAAAKgAAAAAAY_lwzp4QRY7ytcSMqJawvIs');
    const ranged: CursorScope = { token, side: null, wallet: null, after: 10, before: 20 };
    expect(decodeTradeCursor(secret, ranged, 'AQAAAAAADwAAAAAAAwAAAAAAAxjsfR-F6DgTSFGtRa9YnuU')).toEqual({ blockTime: 15, id: 3, bound: 3 });
  });

  it('refuses fields out of range', () => {
    expect(() => encodeTradeCursor(secret, scope, { blockTime: -1, id: 1, bound: 1 })).toThrow(RangeError);
    expect(() => encodeTradeCursor(secret, scope, { blockTime: 1, id: 2 ** 48, bound: 1 })).toThrow(RangeError);
  });
});

describe('event cursors', () => {
  it('decode what they encode, for the same tenant only', () => {
    const c = encodeEventCursor(secret, 'tenant_a', 17);
    expect(c).toHaveLength(31);
    expect(decodeEventCursor(secret, 'tenant_a', c)).toBe(17);
    expect(decodeEventCursor(secret, 'tenant_b', c)).toBeNull();
    expect(decodeEventCursor(secret, 'tenant_a', encodeEventCursor(secret, 'tenant_a', 0))).toBe(0);
  });

  it('are never taken for trade cursors, nor trade cursors for them', () => {
    // A tenant id that spells the trade scope's fields still signs under another kind tag.
    const trade = encodeTradeCursor(secret, scope, { blockTime: 1, id: 2, bound: 3 });
    expect(decodeEventCursor(secret, 'tenant_a', trade)).toBeNull();
    expect(decodeTradeCursor(secret, scope, encodeEventCursor(secret, 'tenant_a', 5))).toBeNull();
  });

  it('still read the cursors issued in the former "e1:" format, for the same tenant only', () => {
    expect(decodeEventCursor(secret, 'tenant_a', 'ZTE6MTc.S79uyYNIFz3usyH3CYPzOA')).toBe(17);
    expect(decodeEventCursor(secret, 'tenant_b', 'ZTE6MTc.S79uyYNIFz3usyH3CYPzOA')).toBeNull();
    expect(decodeEventCursor(secret, 'tenant_a', 'ZTE6MTc.S79uyYNIFz3usyH3CYPzOB')).toBeNull();
  });

  it('refuse every one-character change of an issued cursor (property)', () => {
    const c = encodeEventCursor(secret, 'tenant_a', 123_456);
    fc.assert(
      fc.property(fc.nat({ max: c.length - 1 }), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=.'), (i, ch) => {
        fc.pre(c[i] !== ch);
        expect(decodeEventCursor(secret, 'tenant_a', c.slice(0, i) + ch + c.slice(i + 1))).toBeNull();
      }),
    );
  });

  it('refuse garbage without throwing', () => {
    for (const s of ['', 'garbage', '.', 'a.b.c', 'x'.repeat(5000), "' OR 1=1 --"]) expect(decodeEventCursor(secret, 'tenant_a', s)).toBeNull();
  });
});
