/**
 * The ingest record format (docs/api.md, Data and ingest): one zod schema per record type. Validation
 * here is stateless; whether a named token exists is checked by the ingest service.
 */
import { z } from 'zod';
import { normalizeAddress } from './address.js';
import { oneChain, storeKey, type Chains } from './chains.js';

const MAX_TIME = 253402300799; // 9999-12-31

const address = z.string().transform((v, ctx) => {
  const a = normalizeAddress(v);
  if (a === null) {
    ctx.addIssue({ code: 'custom', message: 'is not a well-formed address' });
    return z.NEVER;
  }
  return a;
});
/**
 * A time in unix seconds. A value past the year 10000 that is a time in milliseconds (a Date.now()
 * or a JavaScript timestamp, the usual slip) is told so.
 */
const time = z
  .number('must be a number')
  .int('must be a whole number of seconds')
  .min(0, 'must be 0 or more')
  .max(MAX_TIME, {
    error: (issue) =>
      typeof issue.input === 'number' && issue.input / 1000 <= MAX_TIME
        ? `must be before the year 10000: times are unix seconds, and ${issue.input} looks like milliseconds (${Math.floor(issue.input / 1000)} in seconds)`
        : 'must be before the year 10000',
  });
/**
 * The largest amount, price or supply a record may carry: far beyond any real one, and small
 * enough that sums of volumes and price x supply stay finite numbers in every answer.
 */
const MAX_AMOUNT = 1e100;
const nonNegative = z.number('must be a number').finite('must be finite').min(0, 'must be 0 or more').max(MAX_AMOUNT, 'must be at most 1e100');
const text = (max: number) =>
  z
    .string('must be a string')
    .min(1, 'must not be empty')
    .max(max, `must have at most ${max} characters`)
    .refine((s) => !/[\u0000-\u001f]/.test(s), 'has control characters');

/** Raster images only: an SVG can carry script, and a partner may put the URI anywhere. */
const DATA_IMAGE = /^data:image\/(?:png|gif|jpeg|webp|avif);base64,[A-Za-z0-9+/]+={0,2}$/;

/**
 * Whether a token's logo may be stored: partners render it as it is, so only `https:` (with a
 * host) or a base64 raster `data:image/` URI, never `javascript:`, `http:` or anything else
 * (docs/api.md, Data and ingest).
 */
export function isSafeLogoUri(v: string): boolean {
  if (v.startsWith('data:')) return DATA_IMAGE.test(v);
  if (!URL.canParse(v)) return false;
  const u = new URL(v);
  return u.protocol === 'https:' && u.hostname !== '' && u.username === '' && u.password === '' && !/[\s\u0000-\u001f]/.test(v);
}

export const tokenRecord = z.object({
  /** The chain of the record's token and market (default: the default chain; docs/chains.md). */
  chain: z.string('must be a string').optional(),
  type: z.literal('token'),
  address,
  symbol: text(32),
  name: text(128),
  decimals: z.number('must be a number').int('must be a whole number').min(0, 'must be 0 or more').max(36, 'must be at most 36'),
  totalSupply: nonNegative
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  circulatingSupply: nonNegative
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  createdAt: time,
  logoUri: z
    .string('must be a string')
    .max(2048, 'must have at most 2048 characters')
    .refine(isSafeLogoUri, 'must be an https: URL or a base64 data:image/ (png, gif, jpeg, webp, avif) URI')
    .nullable()
    .optional()
    .transform((v) => v ?? null),
});

export const marketRecord = z.object({
  /** The chain of the record's token and market (default: the default chain; docs/chains.md). */
  chain: z.string('must be a string').optional(),
  type: z.literal('market'),
  address,
  token: address,
  quoteAddress: address,
  quoteSymbol: text(32),
  dex: text(64),
  liquidityUsd: nonNegative,
  createdAt: time,
});

export const tradeRecord = z.object({
  /** The chain of the record's token and market (default: the default chain; docs/chains.md). */
  chain: z.string('must be a string').optional(),
  type: z.literal('trade'),
  token: address,
  market: address,
  signature: z.string().regex(/^[\w-]{1,128}$/, 'must be 1 to 128 letters, digits, _ or -'),
  index: z.number('must be a number').int('must be a whole number').min(0, 'must be 0 or more').max(1_000_000, 'must be at most 1000000'),
  blockTime: time,
  side: z.enum(['buy', 'sell'], 'must be buy or sell'),
  priceUsd: z.number('must be a number').finite('must be finite').positive('must be more than 0').max(MAX_AMOUNT, 'must be at most 1e100'),
  amount: nonNegative,
  quoteAmount: nonNegative,
  volumeUsd: nonNegative,
  wallet: address,
});

export const holderRecord = z.object({
  /** The chain of the record's token and market (default: the default chain; docs/chains.md). */
  chain: z.string('must be a string').optional(),
  type: z.literal('holder'),
  token: address,
  owner: address,
  amount: nonNegative,
  updatedAt: time,
});

export const ingestRecord = z.discriminatedUnion('type', [tokenRecord, marketRecord, tradeRecord, holderRecord]);

export type TokenRecord = z.infer<typeof tokenRecord>;
export type MarketRecord = z.infer<typeof marketRecord>;
export type TradeRecord = z.infer<typeof tradeRecord>;
export type HolderRecord = z.infer<typeof holderRecord>;
export type IngestRecord = z.infer<typeof ingestRecord>;

/**
 * Validates one record; returns it normalised, or a one-line reason. The addresses naming its
 * token and market become store keys on the record's chain (src/domain/chains.ts, storeKey) and
 * `chain` is dropped; wallets, owners and quote addresses stay plain addresses. A chain outside
 * `chains` is the record's error.
 */
export function parseRecord(value: unknown, chains: Chains = ONE_CHAIN): { ok: true; record: IngestRecord } | { ok: false; error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'a record must be a JSON object' };
  }
  const parsed = ingestRecord.safeParse(value);
  if (parsed.success) return onChain(parsed.data, chains);
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join('.') : 'record';
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return { ok: false, error: `${field} is required` };
  if (issue.code === 'invalid_union' && (issue.path.length === 0 || issue.path[0] === 'type')) {
    return { ok: false, error: 'type must be one of token, market, trade, holder' };
  }
  // Our own messages are predicates ("must be ..."): they read after the field name.
  return { ok: false, error: /^[a-z]/.test(issue.message) ? `${field} ${issue.message}` : `${field}: ${issue.message}` };
}

const ONE_CHAIN = oneChain();

function onChain(record: IngestRecord, chains: Chains): { ok: true; record: IngestRecord } | { ok: false; error: string } {
  const { chain: named, ...rest } = record;
  const chain = named ?? chains.defaultChain;
  if (!chains.list.includes(chain)) {
    return { ok: false, error: `chain ${JSON.stringify(chain.slice(0, 40))} is not one of CHAINS (${chains.list.join(', ')})` };
  }
  if (chain === chains.defaultChain) return { ok: true, record: rest as IngestRecord };
  const key = (address: string) => storeKey({ chain, address }, chains);
  switch (rest.type) {
    case 'token':
      return { ok: true, record: { ...rest, address: key(rest.address) } };
    case 'market':
      return { ok: true, record: { ...rest, address: key(rest.address), token: key(rest.token) } };
    case 'trade':
      return { ok: true, record: { ...rest, token: key(rest.token), market: key(rest.market) } };
    case 'holder':
      return { ok: true, record: { ...rest, token: key(rest.token) } };
  }
}
