/**
 * Configuration from the environment (docs/operations.md). `loadConfig` is the only place that
 * reads environment variables; everything else receives the frozen result.
 */
import { hostname } from 'node:os';
import { z } from 'zod';
import { chainsFrom, type Chains } from './domain/chains.js';

export type RateSpec = { limit: number; windowSeconds: number };

export type Config = Readonly<{
  port: number;
  host: string;
  databasePath: string;
  /** The default chain (CHAINS' first, or CHAIN): the chain a plain address names. */
  chain: string;
  /** Every chain of the deployment, the default first (docs/chains.md). */
  chains: Chains;
  demoData: 'auto' | 'off';
  demoFeed: boolean;
  trustProxy: number;
  rateLimitAnon: RateSpec;
  corsOrigins: '*' | readonly string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  webhookAllowPrivate: boolean;
  /** In-process response caches (CACHE=off turns them off: the benchmark's uncached run). */
  responseCache: boolean;
  /** Open connections one client IP (IPv6 /56) may hold (docs/api.md, Limits). */
  maxConnectionsPerIp: number;
  /** Bound on the bytes the response cache holds (CACHE_MAX_MB; docs/api.md, Response cache). */
  cacheMaxBytes: number;
  /**
   * PostgreSQL store (DATABASE_URL, postgres:// or postgresql://); null: the SQLite file at
   * databasePath (docs/operations.md, Many instances).
   */
  databaseUrl: string | null;
  /** Redis shared by the instances (REDIS_URL, redis:// or rediss://); null: none. */
  redisUrl: string | null;
  /** This instance's name in logs, metrics and /healthz (INSTANCE_ID; default host name and pid). */
  instanceId: string;
  /**
   * The chain indexer's file (INDEXER_CONFIG; docs/indexer.md): the server runs the indexer as
   * one of its jobs. Null: no indexer. The file itself is read and checked at start-up.
   */
  indexerConfig: string | null;
}>;

/** A bad environment value: the message is one line naming the variable. */
export class ConfigError extends Error {}

const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be from ${min} to ${max}`);

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** A URL of one of `protocols` naming a host; the message never repeats a password. */
const engineUrl = (protocols: readonly string[], example: string) =>
  z.string().refine((v) => {
    try {
      const u = new URL(v);
      return protocols.includes(u.protocol) && u.hostname !== '';
    } catch {
      return false;
    }
  }, `must be a URL like ${example}`);

/** Redis databases are numbered; the path of a Redis URL is empty or /n. */
const redisDb = (v: string) => {
  try {
    return /^\/?([0-9]{1,5})?$/.test(new URL(v).pathname);
  } catch {
    return true; // not a URL: the check before says so
  }
};

const schema = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_PATH: z.string().min(1).default('data/tokens.db'),
  // Checked together by chainsFrom (src/domain/chains.ts): CHAINS' first is the default chain.
  CHAIN: z.string().optional(),
  CHAINS: z.string().optional(),
  DEMO_DATA: z.enum(['auto', 'off']).default('auto'),
  DEMO_FEED: z
    .enum(['on', 'off'])
    .transform((v) => v === 'on')
    .default(true),
  TRUST_PROXY: int(0, 10).default(0),
  RATE_LIMIT_ANON: z
    .string()
    .regex(/^[1-9][0-9]{0,8}\/[1-9][0-9]{0,6}$/, 'must look like 300/60 (requests/seconds)')
    .transform((v) => {
      const [limit, windowSeconds] = v.split('/').map(Number) as [number, number];
      return { limit, windowSeconds };
    })
    .default({ limit: 300, windowSeconds: 60 }),
  CORS_ORIGINS: z
    .string()
    .min(1)
    .transform((v, ctx) => {
      if (v.trim() === '*') return '*' as const;
      const list = v.split(',').map((s) => s.trim());
      for (const origin of list) {
        if (!/^https?:\/\/[^\s/]+$/.test(origin)) {
          ctx.addIssue({ code: 'custom', message: `"${origin}" is not an origin like https://example.com` });
          return z.NEVER;
        }
      }
      return Object.freeze(list);
    })
    .default('*'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  CACHE: z
    .enum(['on', 'off'])
    .transform((v) => v === 'on')
    .default(true),
  MAX_CONNECTIONS_PER_IP: int(1, 1_000_000).default(256),
  CACHE_MAX_MB: int(1, 1_048_576).default(256),
  DATABASE_URL: engineUrl(['postgres:', 'postgresql:'], 'postgres://user:pass@host:5432/db').optional(),
  REDIS_URL: engineUrl(['redis:', 'rediss:'], 'redis://host:6379/0')
    .refine(redisDb, 'must end in a database number (redis://host:6379/0) or nothing')
    .optional(),
  INDEXER_CONFIG: z.string().max(4096, 'must be a path of at most 4096 characters').optional(),
  INSTANCE_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1 to 64 letters, digits, dots, dashes, colons or underscores')
    .optional(),
});

/** `value` as shown in an error message: a URL's password is masked. */
export function shownValue(value: string): string {
  try {
    const u = new URL(value);
    if (u.password !== '') {
      u.password = '***';
      return u.toString();
    }
  } catch {
    // not a URL: shown as it is
  }
  return value;
}

/**
 * Validates the environment. Empty strings count as unset. Throws ConfigError with a one-line
 * message naming the first bad variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = env[name];
    if (value !== undefined && value !== '') picked[name] = value;
  }
  const parsed = schema.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    const shown = picked[name] === undefined ? '' : ` (got ${JSON.stringify(shownValue(picked[name]))})`;
    throw new ConfigError(`invalid ${name}${shown}: ${issue.message}`);
  }
  const e = parsed.data;
  const chains = chainsFrom({ chains: e.CHAINS, chain: e.CHAIN });
  if ('error' in chains) {
    const name = chains.error.startsWith('CHAINS') ? 'CHAINS' : 'CHAIN';
    throw new ConfigError(`invalid ${name} (got ${JSON.stringify(shownValue(picked[name]!))}): ${chains.error}`);
  }
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    databasePath: e.DATABASE_PATH,
    chain: chains.defaultChain,
    chains: Object.freeze({ list: Object.freeze([...chains.list]), defaultChain: chains.defaultChain }),
    demoData: e.DEMO_DATA,
    demoFeed: e.DEMO_FEED,
    trustProxy: e.TRUST_PROXY,
    rateLimitAnon: Object.freeze(e.RATE_LIMIT_ANON),
    corsOrigins: e.CORS_ORIGINS,
    logLevel: e.LOG_LEVEL,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    responseCache: e.CACHE,
    maxConnectionsPerIp: e.MAX_CONNECTIONS_PER_IP,
    cacheMaxBytes: e.CACHE_MAX_MB * 1024 * 1024,
    databaseUrl: e.DATABASE_URL ?? null,
    redisUrl: e.REDIS_URL ?? null,
    instanceId: e.INSTANCE_ID ?? defaultInstanceId(),
    indexerConfig: e.INDEXER_CONFIG ?? null,
  });
}

/** Host name and pid: unique among the instances of one machine and across machines. */
function defaultInstanceId(): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 48) || 'host';
  return `${host}-${process.pid}`;
}
