/**
 * The indexer file (docs/indexer.md, The file): a JSON document naming, per chain, the node, the
 * factories and the quote tokens. Validated field by field before anything starts, so a bad file
 * stops start-up (or `cli index`, exit 2) with one line naming the field.
 */
import { z } from 'zod';

export type DexConfig = { name: string; protocol: 'uniswap-v2' | 'uniswap-v3'; factory: string };
export type QuoteConfig = { address: string; usd: number } | { address: string; usdPool: string };

export type ChainIndexerConfig = {
  chain: string;
  rpcUrl: string;
  wsUrl: string | null;
  pollMs: number;
  startBlock: number;
  confirmations: number;
  reorgDepth: number;
  maxBlockRange: number;
  requestsPerSecond: number;
  dexes: DexConfig[];
  quotes: QuoteConfig[];
  holders: boolean;
};

export type IndexerConfig = { chains: ChainIndexerConfig[] };

/** A bad indexer file: the message is one line naming the field (`chains[0].rpcUrl must be ...`). */
export class IndexerConfigError extends Error {}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const evmAddress = z
  .string('must be a string')
  .regex(EVM_ADDRESS, 'must be 0x and 40 hex digits')
  .transform((v) => v.toLowerCase());

const url = (protocols: readonly string[], example: string) =>
  z.string('must be a string').refine((v) => {
    try {
      const u = new URL(v);
      return protocols.includes(u.protocol) && u.hostname !== '';
    } catch {
      return false;
    }
  }, `must be a URL like ${example}`);

const whole = (min: number, max: number) =>
  z.number('must be a number').int('must be a whole number').min(min, `must be from ${min} to ${max}`).max(max, `must be from ${min} to ${max}`);

const dex = z.strictObject({
  name: z.string('must be a string').regex(/^[\w.-]{1,64}$/, 'must be 1 to 64 letters, digits, _, . or -'),
  protocol: z.enum(['uniswap-v2', 'uniswap-v3'], 'must be uniswap-v2 or uniswap-v3'),
  factory: evmAddress,
});

const quote = z.union(
  [
    z.strictObject({ address: evmAddress, usd: z.number('must be a number').finite('must be finite').positive('must be more than 0') }),
    z.strictObject({ address: evmAddress, usdPool: evmAddress }),
  ],
  'must be {"address","usd"} or {"address","usdPool"}',
);

const chainSchema = z.strictObject({
  chain: z.string('must be a string'),
  rpcUrl: url(['http:', 'https:'], 'http://127.0.0.1:8545'),
  wsUrl: url(['ws:', 'wss:'], 'ws://127.0.0.1:8545')
    .nullable()
    .optional()
    .transform((v) => v ?? null),
  pollMs: whole(50, 600_000).default(1000),
  startBlock: whole(0, Number.MAX_SAFE_INTEGER).default(0),
  confirmations: whole(0, 10_000).default(0),
  reorgDepth: whole(1, 10_000).default(64),
  maxBlockRange: whole(1, 1_000_000).default(2000),
  requestsPerSecond: z.number('must be a number').finite('must be finite').positive('must be more than 0').max(100_000, 'must be at most 100000').default(25),
  dexes: z.array(dex, 'must be an array').min(1, 'must name at least one dex'),
  quotes: z.array(quote, 'must be an array').min(1, 'must name at least one quote token'),
  holders: z.boolean('must be true or false').default(true),
});

const fileSchema = z.strictObject({ chains: z.array(chainSchema, 'must be an array').min(1, 'must name at least one chain') });

function fieldOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out === '' ? 'the file' : out;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/**
 * Validates a parsed JSON value, filling the defaults of docs/indexer.md; throws
 * IndexerConfigError whose message is one line naming the field. `chains` is CHAINS: a chain's
 * `chain` must be one of them, and no chain may be configured twice.
 */
export function parseIndexerConfig(value: unknown, chains: readonly string[]): IndexerConfig {
  const parsed = fileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = fieldOf(issue.path);
    if (issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined) throw new IndexerConfigError(`${field} is required`);
    if (issue.code === 'unrecognized_keys')
      throw new IndexerConfigError(`${field === 'the file' ? '' : `${field}.`}${issue.keys[0]} is not a field of the indexer file`);
    throw new IndexerConfigError(`${field} ${issue.message}`);
  }
  const out: ChainIndexerConfig[] = [];
  const seen = new Set<string>();
  parsed.data.chains.forEach((c, i) => {
    const at = `chains[${i}]`;
    if (!chains.includes(c.chain)) throw new IndexerConfigError(`${at}.chain must be one of CHAINS (${chains.join(', ')})`);
    if (seen.has(c.chain)) throw new IndexerConfigError(`${at}.chain ${c.chain} is configured twice`);
    seen.add(c.chain);
    const names = new Set<string>();
    c.dexes.forEach((d, j) => {
      if (names.has(d.name)) throw new IndexerConfigError(`${at}.dexes[${j}].name ${d.name} is used twice`);
      names.add(d.name);
    });
    const quotes = new Set<string>();
    c.quotes.forEach((q, j) => {
      if (quotes.has(q.address)) throw new IndexerConfigError(`${at}.quotes[${j}].address is listed twice`);
      quotes.add(q.address);
    });
    c.quotes.forEach((q, j) => {
      if ('usdPool' in q && q.usdPool === q.address) throw new IndexerConfigError(`${at}.quotes[${j}].usdPool must be a pool, not the quote itself`);
    });
    out.push({ ...c, dexes: c.dexes.map((d) => ({ ...d })), quotes: c.quotes.map((q) => ({ ...q })) });
  });
  return { chains: out };
}
