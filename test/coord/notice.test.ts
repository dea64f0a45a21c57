/**
 * The change notices between instances (src/store/port/bus.ts) and how the PostgreSQL bus fits
 * them into NOTIFY payloads (src/store/pg/pg-bus.ts): under 8000 bytes each, split without losing
 * or repeating a token, and a message nobody can read ignored (not taken as "everything changed").
 */
import { describe, expect, it } from 'vitest';
import { decodeNotice, encodeNotice, type Notice } from '../../src/store/port/bus.js';
import { fitted } from '../../src/store/pg/pg-bus.js';

describe('change notices', () => {
  it('travel as an envelope naming the sender', () => {
    const notice: Notice = { type: 'change', tokens: [3, 1, 2], accounts: true };
    expect(decodeNotice(encodeNotice('inst-a', notice))).toEqual({ from: 'inst-a', notice });
  });

  it('read a garbled or unknown message as nothing at all (the bus ignores and counts it)', () => {
    expect(decodeNotice('not json')).toBeNull();
    expect(decodeNotice('\u0000\u00ff')).toBeNull();
    expect(decodeNotice(JSON.stringify({ from: 'b', notice: { type: 'future', x: 1 } }))).toBeNull();
    expect(decodeNotice(JSON.stringify({ from: 'b', notice: { type: 'change', tokens: 'some', accounts: true } }))).toBeNull();
    expect(decodeNotice(JSON.stringify({ notice: { type: 'change', tokens: 'all', accounts: true } }))).toBeNull();
  });
});

describe('fitted (NOTIFY payloads)', () => {
  it('keeps a small notice whole', () => {
    const notice: Notice = { type: 'change', tokens: [1, 2, 3], accounts: false };
    expect(fitted('inst-a', notice)).toEqual([notice]);
  });

  it('splits a change naming many tokens into notices under 8000 bytes, every token once, in order', () => {
    const tokens = Array.from({ length: 5000 }, (_, i) => 1_000_000 + i);
    const parts = fitted('inst-a', { type: 'change', tokens, accounts: true });
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(Buffer.byteLength(encodeNotice('inst-a', p))).toBeLessThan(8000);
      expect(p).toMatchObject({ type: 'change', accounts: true });
    }
    expect(parts.flatMap((p) => (p.type === 'change' && p.tokens !== 'all' ? p.tokens : []))).toEqual(tokens);
  });

  it('splits a long list of revoked keys the same way', () => {
    const keyIds = Array.from({ length: 400 }, (_, i) => `key_${String(i).padStart(30, '0')}`);
    const parts = fitted('inst-a', { type: 'revoke', keyIds });
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.flatMap((p) => (p.type === 'revoke' ? p.keyIds : []))).toEqual(keyIds);
  });
});
