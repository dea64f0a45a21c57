/**
 * Building blocks of the /v1 response schemas (docs/api.md, Conventions): numbers are JSON numbers,
 * times unix seconds, `...Pct` percentages; a value the store does not know is null, never
 * absent. Each block carries its description, so every field of /openapi.json says what it is.
 */
import { z } from 'zod';

/** Unix seconds. */
export const unixTime = (description: string) => z.int().min(0).describe(`${description} (unix seconds)`);
/** Unix seconds, or null when there is none. */
export const unixTimeOrNull = (description: string) => z.int().min(0).nullable().describe(`${description} (unix seconds), null when there is none`);
/** A whole count. */
export const count = (description: string) => z.int().min(0).describe(description);
/** A USD amount. */
export const usd = (description: string) => z.number().describe(`${description} (USD)`);
/** A USD amount, or null when unknown (no trade yet, no supply). */
export const usdOrNull = (description: string) => z.number().nullable().describe(`${description} (USD), null when unknown`);
/** A percentage (12.5 means 12.5 %), not rounded; null when there is nothing to compare with. */
export const pctOrNull = (description: string) => z.number().nullable().describe(`${description} (percent: 12.5 means 12.5 %), null when there is no base`);
/** A rank in a list, from 1. */
export const rank = () => z.int().min(1).describe('Position in the list, from 1');
/** An address in canonical form (base58, or 0x + 40 lower-case hex digits). */
export const address = (description: string) => z.string().describe(`${description}: base58, or 0x + 40 lower-case hex digits`);
/**
 * The chain of a token, market, trade or price: present only in a deployment of several chains
 * (docs/chains.md, Answers), so a one-chain deployment answers as before chains.
 */
export const chainField = (what: string) =>
  z.string().optional().describe(`Chain of the ${what} (present only when the deployment serves several chains; the address is then the plain address on it)`);

/** An opaque cursor to pass back unchanged. */
export const cursor = (description: string) => z.string().describe(description);

/** Example addresses, shared so the examples read as one consistent world. */
export const EX = {
  token: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
  token2: 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm',
  sol: 'So11111111111111111111111111111111111111112',
  market: '8sLbNZoA1cfnvMJLPfp98ZLAnFSYCFApfJKMbiXNLwxj',
  wallet: '5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1',
  wallet2: '7rhxnLV8C77o6d8oz26AgK8x8m5ePsdeRawjqvojbjnQ',
} as const;
