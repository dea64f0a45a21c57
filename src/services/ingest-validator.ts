/**
 * The validator of an ingest batch (docs/api.md, Data and ingest): each line checked on its own,
 * tokens and markets tracked in batch order, the first errors kept to name in the refusal. The
 * one ingest (ingest.ts, on either engine) and the batch helpers use it.
 */
import { normalizeAddress } from '../domain/address.js';
import { isChainName, oneChain, storeKey, type Chains } from '../domain/chains.js';
import { parseRecord, type IngestRecord } from '../domain/records.js';

export type LineError = { line: number; error: string };
// The writer's slices carry numbered records: the type is the port's (src/store/port/ingest.ts).
export type { NumberedRecord } from '../store/port/ingest.js';

/** A batch refused whole: nothing of it was written. */
export class IngestRejected extends Error {
  constructor(readonly errors: LineError[]) {
    super(`${errors.length} invalid record${errors.length === 1 ? '' : 's'}`);
  }
}

export type Validator = {
  /** Validates one raw record at `line`; returns it, or records the error and returns null. */
  check(line: number, value: unknown): IngestRecord | null;
  /** Records a line refused before validation (not JSON). */
  reject(line: number, error: string): void;
  /** The first MAX_ERRORS errors, then a line saying the rest are not listed. */
  readonly errors: LineError[];
  /** How many lines were refused in all. */
  readonly invalid: number;
};

/**
 * What the store holds, as a validator asks it: whether a token, and a market, is stored already.
 * Each is asked at most once per address and batch.
 */
export type StoredLookup = {
  token(address: string): boolean;
  market(address: string): boolean;
};

/** The token and market addresses raw records name, valid or not (validation decides). */
export type NamedAddresses = { tokens: Set<string>; markets: Set<string> };

export const noNames = (): NamedAddresses => ({ tokens: new Set(), markets: new Set() });

/**
 * Adds what one raw record names to `into`: its `token`, and the `market` of a trade. Engines
 * that cannot answer synchronously (PostgreSQL) look these up in one read before validating.
 */
export function addNames(into: NamedAddresses, value: unknown, chains: Chains = ONE_CHAIN): void {
  if (typeof value !== 'object' || value === null) return;
  const { type, token, market, chain } = value as { type?: unknown; token?: unknown; market?: unknown; chain?: unknown };
  // As validation will name them: an EVM address lower-cased, as a store key on the record's chain
  // (one that is not an address, or a chain not configured, is refused anyway).
  if (typeof token === 'string') into.tokens.add(namedKey(token, chain, chains));
  if (type === 'trade' && typeof market === 'string') into.markets.add(namedKey(market, chain, chains));
}

/**
 * The store key a raw record's address will have once validated: normalised, on the record's
 * `chain` (the default chain when it names none, or none that could be a chain). What validation
 * refuses (a bad address, a chain not configured) gets a key no stored token has.
 */
export function namedKey(address: string, chain: unknown, chains: Chains): string {
  const on = typeof chain === 'string' && isChainName(chain) ? chain : chains.defaultChain;
  return storeKey({ chain: on, address: normalizeAddress(address) ?? address }, chains);
}

const ONE_CHAIN = oneChain();

const MAX_ERRORS = 100;

/** A set of addresses the batch defines, in front of a memo of the store's answers. */
function knownSet(stored: (address: string) => boolean) {
  const defined = new Set<string>();
  const known = new Map<string, boolean>();
  return {
    define: (address: string) => void defined.add(address),
    has(address: string): boolean {
      if (defined.has(address)) return true;
      let k = known.get(address);
      if (k === undefined) {
        k = stored(address);
        known.set(address, k);
      }
      return k;
    },
  };
}

/**
 * A validator for one batch, tracking which tokens and markets the batch defines, in order: a
 * record may name only a token, and a trade only a market, that is stored or defined on an
 * earlier line (a record refused does not define anything).
 */
export function createValidator(stored: StoredLookup, chains: Chains = ONE_CHAIN): Validator {
  const tokens = knownSet(stored.token);
  const markets = knownSet(stored.market);
  const errors: LineError[] = [];
  let invalid = 0;
  const reject = (line: number, error: string) => {
    invalid++;
    if (errors.length < MAX_ERRORS) errors.push({ line, error });
    else if (errors.length === MAX_ERRORS) errors.push({ line, error: 'too many errors; the rest are not listed' });
  };
  /** Why a well-formed record is refused, or null. */
  const unknown = (record: IngestRecord): string | null => {
    if (record.type === 'token') return null;
    if (!tokens.has(record.token)) return `unknown token ${record.token}`;
    // A trade of an unknown market would be stored with no dex and its market candles answer 404.
    if (record.type === 'trade' && !markets.has(record.market)) return `unknown market ${record.market}`;
    return null;
  };
  return {
    errors,
    get invalid() {
      return invalid;
    },
    reject,
    check(line, value) {
      const parsed = parseRecord(value, chains);
      if (!parsed.ok) {
        reject(line, parsed.error);
        return null;
      }
      const { record } = parsed;
      const error = unknown(record);
      if (error !== null) {
        reject(line, error);
        return null;
      }
      if (record.type === 'token') tokens.define(record.address);
      else if (record.type === 'market') markets.define(record.address);
      return record;
    },
  };
}
