/** The key format: svc_live_ + 40 base62 characters, hashed with SHA-256, prefix and last4 kept. */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEY_PREFIX, MAX_KEY_LENGTH, hashKey, looksLikeKey, newKeySecret } from '../../src/domain/api-key.js';
import { keyStatus } from '../../src/services/accounts.js';
import type { KeyRow } from '../../src/store/sqlite/accounts-repo.js';

const BASE62 = /^[0-9A-Za-z]+$/;

describe('newKeySecret', () => {
  it('makes svc_live_ + at least 32 base62 characters, its SHA-256, prefix and last4', () => {
    const s = newKeySecret();
    expect(s.secret.startsWith(KEY_PREFIX)).toBe(true);
    const random = s.secret.slice(KEY_PREFIX.length);
    expect(random.length).toBeGreaterThanOrEqual(32);
    expect(random).toMatch(BASE62);
    expect(s.hash.equals(createHash('sha256').update(s.secret).digest())).toBe(true);
    expect(s.prefix).toBe(KEY_PREFIX + random.slice(0, 4));
    expect(s.last4).toBe(random.slice(-4));
    expect(looksLikeKey(s.secret)).toBe(true);
  });

  it('uses the whole alphabet, about evenly (no modulo bias worth the name)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 500; i++) for (const c of newKeySecret().secret.slice(KEY_PREFIX.length)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (500 * 40) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected)).toBeLessThan(expected * 0.35);
  });

  it('never repeats', () => {
    const seen = new Set(Array.from({ length: 2000 }, () => newKeySecret().secret));
    expect(seen.size).toBe(2000);
  });
});

describe('looksLikeKey', () => {
  it('accepts exactly svc_live_ + 32..247 base62 characters (at most 256 in all)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'), minLength: 0, maxLength: 300 }),
        (r) => {
          const key = KEY_PREFIX + r;
          expect(looksLikeKey(key)).toBe(r.length >= 32 && key.length <= MAX_KEY_LENGTH);
        },
      ),
    );
  });

  it('refuses anything with a character outside base62 or without the exact prefix', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 32, maxLength: 80 }), (r) => {
        fc.pre(!BASE62.test(r));
        expect(looksLikeKey(KEY_PREFIX + r)).toBe(false);
      }),
    );
    for (const v of ['', 'svc_live', 'SVC_LIVE_' + 'a'.repeat(40), 'svc_test_' + 'a'.repeat(40), ' svc_live_' + 'a'.repeat(40)]) {
      expect(looksLikeKey(v)).toBe(false);
    }
  });

  it('hashes deterministically', () => {
    expect(hashKey('svc_live_x').equals(hashKey('svc_live_x'))).toBe(true);
    expect(hashKey('svc_live_x').equals(hashKey('svc_live_y'))).toBe(false);
  });
});

describe('keyStatus', () => {
  const row = (over: Partial<KeyRow>): KeyRow => ({
    id: 'key_1',
    tenantId: 'ten_1',
    name: null,
    prefix: 'svc_live_abcd',
    last4: 'wxyz',
    scopes: ['read'],
    createdAt: 100,
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    ...over,
  });

  it('is active, expiring before expiresAt, expired from expiresAt on, revoked above all', () => {
    expect(keyStatus(row({}), 1000)).toBe('active');
    expect(keyStatus(row({ expiresAt: 1001 }), 1000)).toBe('expiring');
    expect(keyStatus(row({ expiresAt: 1000 }), 1000)).toBe('expired');
    expect(keyStatus(row({ expiresAt: 1001, revokedAt: 900 }), 1000)).toBe('revoked');
  });
});
