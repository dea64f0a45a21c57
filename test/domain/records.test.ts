/**
 * The ingest record rules of src/domain/records.ts that are not plain types: a token's `logoUri`
 * (docs/api.md, Data and ingest) is answered verbatim to partners who render it, so only an
 * https: URL or a raster data:image/ URI is stored; times are unix seconds, and a time in
 * milliseconds is told so rather than only "past the year 10000".
 */
import { describe, expect, it } from 'vitest';
import { isSafeLogoUri, parseRecord } from '../../src/domain/records.js';

const token = (logoUri: unknown) => ({
  type: 'token',
  address: 'So11111111111111111111111111111111111111112',
  symbol: 'T',
  name: 'T',
  decimals: 6,
  createdAt: 1_700_000_000,
  logoUri,
});

describe('logoUri', () => {
  it.each([
    'https://cdn.example.com/logo.png',
    'https://example.com:8443/a/b.svg?v=2#x',
    'data:image/png;base64,iVBORw0KGgo=',
    'data:image/webp;base64,UklGRg==',
  ])('accepts %s', (uri) => {
    expect(isSafeLogoUri(uri)).toBe(true);
    const parsed = parseRecord(token(uri));
    expect(parsed).toEqual({ ok: true, record: expect.objectContaining({ logoUri: uri }) });
  });

  it('accepts null and an absent logo as null', () => {
    expect(parseRecord(token(null))).toEqual({ ok: true, record: expect.objectContaining({ logoUri: null }) });
    const { logoUri: _, ...without } = token(null);
    expect(parseRecord(without)).toEqual({ ok: true, record: expect.objectContaining({ logoUri: null }) });
  });

  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(document.cookie)',
    'http://cdn.example.com/logo.png',
    'data:text/html;base64,PHNjcmlwdD4=',
    'data:image/svg+xml;base64,PHN2Zz4=',
    'data:image/png,<script>',
    'vbscript:x',
    'file:///etc/passwd',
    '//cdn.example.com/logo.png',
    'logo.png',
    'https://user:pw@example.com/x.png',
    'https://example.com/a b.png',
    '',
  ])('refuses %j as a per-record error naming logoUri', (uri) => {
    expect(isSafeLogoUri(uri)).toBe(false);
    expect(parseRecord(token(uri))).toEqual({
      ok: false,
      error: 'logoUri must be an https: URL or a base64 data:image/ (png, gif, jpeg, webp, avif) URI',
    });
  });

  it('refuses a logo over 2048 characters and a non-string', () => {
    expect(parseRecord(token(`https://x.example/${'a'.repeat(2048)}`))).toEqual({ ok: false, error: 'logoUri must have at most 2048 characters' });
    expect(parseRecord(token(5))).toEqual({ ok: false, error: 'logoUri must be a string' });
  });
});

const mint = 'So11111111111111111111111111111111111111112';
const holder = (updatedAt: number) => ({ type: 'holder', token: mint, owner: mint, amount: 1, updatedAt });

describe('record times', () => {
  it('hints that times are seconds when a time looks like milliseconds', () => {
    expect(parseRecord(holder(1_700_000_000_123))).toEqual({
      ok: false,
      error: 'updatedAt must be before the year 10000: times are unix seconds, and 1700000000123 looks like milliseconds (1700000000 in seconds)',
    });
  });

  it('says only the bound for a time beyond the year 10000 even in milliseconds', () => {
    expect(parseRecord(holder(1e15))).toEqual({ ok: false, error: 'updatedAt must be before the year 10000' });
  });

  it('takes the last second of the year 9999', () => {
    expect(parseRecord(holder(253_402_300_799)).ok).toBe(true);
  });
});
