/**
 * The ingest record rules of src/domain/records.ts that are not plain types: a token's `logoUri`
 * (docs/api.md, Data and ingest) is answered verbatim to partners who render it, so only an
 * https: URL or a raster data:image/ URI is stored; times are unix seconds, and a time in
 * milliseconds is told so rather than only "past the year 10000".
 * A record's optional `chain` makes its token and market addresses store keys on that chain
 * (docs/chains.md, Ingest).
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

describe('a record on a chain (docs/chains.md, Ingest)', () => {
  const EVM = '0x4200000000000000000000000000000000000006';
  const POOL = '0x1111111111111111111111111111111111111111';
  const QUOTE = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
  const WALLET = '0x2222222222222222222222222222222222222222';
  const SOL = 'So11111111111111111111111111111111111111112';
  const chains = { list: ['solana', 'base', 'ethereum'], defaultChain: 'solana' };
  const tokenOn = (chain?: string) => ({
    ...(chain === undefined ? {} : { chain }),
    type: 'token',
    address: EVM.toUpperCase().replace('0X', '0x'),
    symbol: 'W',
    name: 'W',
    decimals: 18,
    createdAt: 1_700_000_000,
  });
  const market = {
    chain: 'base',
    type: 'market',
    address: POOL,
    token: EVM,
    quoteAddress: QUOTE,
    quoteSymbol: 'USDC',
    dex: 'uniswap-v2',
    liquidityUsd: 5,
    createdAt: 1_700_000_001,
  };
  const trade = {
    chain: 'ethereum',
    type: 'trade',
    token: EVM,
    market: POOL,
    signature: 'tx1',
    index: 0,
    blockTime: 1_700_000_002,
    side: 'buy',
    priceUsd: 2,
    amount: 3,
    quoteAmount: 6,
    volumeUsd: 6,
    wallet: WALLET,
  };
  const holder = { chain: 'base', type: 'holder', token: EVM, owner: WALLET, amount: 7, updatedAt: 1_700_000_003 };

  it("makes a token's address its store key on the record's chain and drops chain", () => {
    expect(parseRecord(tokenOn('base'), chains)).toEqual({
      ok: true,
      record: {
        type: 'token',
        address: `base:${EVM}`,
        symbol: 'W',
        name: 'W',
        decimals: 18,
        totalSupply: null,
        circulatingSupply: null,
        createdAt: 1_700_000_000,
        logoUri: null,
      },
    });
  });

  it("keys a market's address and token, leaving its quote address plain", () => {
    expect(parseRecord(market, chains)).toEqual({
      ok: true,
      record: {
        type: 'market',
        address: `base:${POOL}`,
        token: `base:${EVM}`,
        quoteAddress: QUOTE,
        quoteSymbol: 'USDC',
        dex: 'uniswap-v2',
        liquidityUsd: 5,
        createdAt: 1_700_000_001,
      },
    });
  });

  it("keys a trade's token and market, leaving its wallet plain", () => {
    const { chain: _, ...plain } = trade;
    expect(parseRecord(trade, chains)).toEqual({ ok: true, record: { ...plain, token: `ethereum:${EVM}`, market: `ethereum:${POOL}` } });
  });

  it("keys a holder's token, leaving its owner plain", () => {
    expect(parseRecord(holder, chains)).toEqual({
      ok: true,
      record: { type: 'holder', token: `base:${EVM}`, owner: WALLET, amount: 7, updatedAt: 1_700_000_003 },
    });
  });

  it('gives plain keys on the default chain, named or not', () => {
    const plain = { ok: true, record: expect.objectContaining({ address: EVM }) };
    expect(parseRecord(tokenOn(), chains)).toEqual(plain);
    expect(parseRecord(tokenOn('solana'), chains)).toEqual(plain);
    expect(parseRecord({ ...holder, chain: 'solana', token: SOL }, chains)).toEqual({
      ok: true,
      record: { type: 'holder', token: SOL, owner: WALLET, amount: 7, updatedAt: 1_700_000_003 },
    });
    expect(parseRecord(tokenOn('solana'), chains)).toEqual({ ok: true, record: expect.not.objectContaining({ chain: 'solana' }) });
  });

  it('refuses a chain outside CHAINS, and one given on a one-chain deployment', () => {
    expect(parseRecord(tokenOn('polygon'), chains)).toEqual({ ok: false, error: 'chain "polygon" is not one of CHAINS (solana, base, ethereum)' });
    expect(parseRecord(trade)).toEqual({ ok: false, error: 'chain "ethereum" is not one of CHAINS (solana)' });
    expect(parseRecord({ ...market, chain: 8453 }, chains)).toEqual({ ok: false, error: 'chain must be a string' });
  });
});
