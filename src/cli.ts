/**
 * The operator CLI (docs/operations.md, Command-line tool): tenants, keys, ingest, demo, backup. With --json it prints
 * exactly one JSON document on stdout. Exit status: 0 success, 1 failed command, 2 bad usage.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { SchemaTooNewError } from './store/port/engine.js';
import { openConfiguredStore, type AnyStore } from './open-store.js';
import { createCoord, type Coord } from './coord/wiring.js';
import { createLogger } from './logger.js';
import { claimDefaultChain, createServices, type Services } from './services/index.js';
import { AccountError, PLAN_NAMES, SCOPES, type Scope } from './services/accounts.js';
import { DEMO_DEFAULTS, loadDemo } from './services/demo.js';
import { systemClock, nowSeconds } from './domain/clock.js';
import { backup, EMAIL, removeDemoData, setEmail, setPassword, type CommandContext } from './cli-commands.js';
import { ingestFiles } from './cli-ingest.js';
import { indexChains } from './cli-index.js';
import { migrateStore } from './cli-migrate-store.js';

/** A wrong call: exit 2. */
class UsageError extends Error {}
/** A command that failed: exit 1. */
class CommandError extends Error {}

export type Io = {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdin: NodeJS.ReadableStream;
  env: Record<string, string | undefined>;
};

const USAGE = `usage: cli <command> [options] [--json]
  tenants create --name NAME --plan free|pro|enterprise [--email E]
  tenants set-email --tenant ID --email E
  tenants set-password --tenant ID        (reads the password from stdin: piped, or typed after a prompt
                                           at a terminal; the tenant needs an email)
  tenants list
  keys create --tenant ID [--name N] [--scopes read,manage,ingest]  (default read,manage)
  keys list --tenant ID
  keys revoke --id KEY_ID
  ingest FILE...                           (NDJSON; - for stdin)
  index --config FILE [--until BLOCK]      (indexes the EVM chains of the file; docs/indexer.md)
  demo [--tokens N] [--days D] [--seed S] [--until T]
  demo --remove                            (deletes the demo tokens and all their data)
  backup FILE [--force]                    (online copy of the SQLite store, safe while the server runs)
  migrate-store --to postgres://...        (copies the SQLite store, not in use, into an empty PostgreSQL database)
The store is PostgreSQL when DATABASE_URL is set, else the SQLite file at DATABASE_PATH.`;

const OPTIONS = {
  json: { type: 'boolean' },
  name: { type: 'string' },
  plan: { type: 'string' },
  email: { type: 'string' },
  tenant: { type: 'string' },
  scopes: { type: 'string' },
  id: { type: 'string' },
  tokens: { type: 'string' },
  days: { type: 'string' },
  seed: { type: 'string' },
  until: { type: 'string' },
  remove: { type: 'boolean' },
  force: { type: 'boolean' },
  to: { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Opts = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const need = (opts: Opts, name: keyof Opts): string => {
  const v = opts[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
};

const wholeNumber = (value: string | undefined, name: string, min: number, max: number, fallback: number): number => {
  if (value === undefined) return fallback;
  if (!/^(0|[1-9][0-9]*)$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
};

async function run(argv: string[], io: Io, withStore: <T>(fn: (store: AnyStore, services: Services) => Promise<T>) => Promise<T>): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]!);
  }
  const opts = parsed.values as Opts;
  const [group, action] = parsed.positionals;
  if (opts.help) {
    io.stdout(USAGE + '\n');
    return 0;
  }
  if (group === undefined) throw new UsageError('no command given');
  const json = opts.json === true;
  const out = (doc: unknown, human: string) => io.stdout(json ? JSON.stringify(doc) + '\n' : human + '\n');
  const clock = systemClock;
  const ctx: CommandContext = {
    positionals: parsed.positionals.slice(1),
    opts,
    stdin: io.stdin,
    stderr: io.stderr,
    withStore,
    databasePath: () => loadConfig(io.env).databasePath,
    databaseUrl: () => loadConfig(io.env).databaseUrl,
    fail: { usage: (m) => new UsageError(m), command: (m) => new CommandError(m) },
  };
  const print = ({ doc, human }: { doc: unknown; human: string }) => (out(doc, human), 0);
  switch (
    `${group} ${group === 'ingest' || group === 'index' || group === 'demo' || group === 'backup' || group === 'migrate-store' ? '' : (action ?? '')}`.trim()
  ) {
    case 'tenants create': {
      const name = need(opts, 'name');
      const plan = need(opts, 'plan');
      if (!(PLAN_NAMES as readonly string[]).includes(plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
      if (opts.email !== undefined && !EMAIL.test(opts.email)) throw new UsageError('--email is not an email address');
      const t = await withStore(async (_s, sv) => sv.accounts.createTenant({ name, plan, email: opts.email ?? null }));
      out({ id: t.id, name: t.name, plan: t.plan, email: t.email }, `created tenant ${t.id} (${t.name}, ${t.plan})`);
      return 0;
    }
    case 'tenants set-email':
      return print(await setEmail(ctx));
    case 'tenants set-password':
      return print(await setPassword(ctx));
    case 'backup':
      return print(await backup(ctx));
    case 'migrate-store':
      return print(await migrateStore({ ...ctx, opts: { ...ctx.opts, to: opts.to } }));
    case 'tenants list': {
      const tenants = await withStore(async (_s, sv) => sv.accounts.tenants());
      out({ tenants }, tenants.map((t) => `${t.id}\t${t.plan}\t${t.name}\t${t.email ?? ''}`).join('\n') || '(no tenants)');
      return 0;
    }
    case 'keys create': {
      const tenant = need(opts, 'tenant');
      const scopes = (opts.scopes ?? 'read,manage').split(',').map((s) => s.trim());
      for (const s of scopes) if (!(SCOPES as readonly string[]).includes(s)) throw new UsageError(`--scopes takes ${SCOPES.join(', ')}`);
      const made = await withStore(async (_s, sv) => sv.accounts.createKey(tenant, { name: opts.name ?? null, scopes: [...new Set(scopes)] as Scope[] }));
      out(
        { id: made.key.id, secret: made.secret, prefix: made.key.prefix, scopes: made.key.scopes },
        `created key ${made.key.id} (${made.key.scopes.join(',')})\nsecret (shown once): ${made.secret}`,
      );
      return 0;
    }
    case 'keys list': {
      const tenant = need(opts, 'tenant');
      const keys = await withStore(async (_s, sv) => sv.accounts.listKeys(tenant));
      out({ keys }, keys.map((k) => `${k.id}\t${k.status}\t${k.prefix}...${k.last4}\t${k.scopes.join(',')}\t${k.name ?? ''}`).join('\n') || '(no keys)');
      return 0;
    }
    case 'keys revoke': {
      const id = need(opts, 'id');
      const key = await withStore(async (_s, sv) => sv.accounts.revokeKey(id));
      out({ key }, `revoked key ${key.id}`);
      return 0;
    }
    case 'ingest':
      return print(await ingestFiles(ctx));
    case 'index':
      return print(await indexChains(ctx, io.env));
    case 'demo': {
      if (action !== undefined) throw new UsageError(`demo takes no argument (got ${action})`);
      if (opts.remove) {
        const other = (['tokens', 'days', 'seed', 'until'] as const).find((o) => opts[o] !== undefined);
        if (other) throw new UsageError(`--remove takes no --${other}`);
        return print(await removeDemoData(ctx));
      }
      const demo = {
        tokens: wholeNumber(opts.tokens, 'tokens', 1, 1000, DEMO_DEFAULTS.tokens),
        days: wholeNumber(opts.days, 'days', 1, 3650, DEMO_DEFAULTS.days),
        seed: wholeNumber(opts.seed, 'seed', 0, 2 ** 32 - 1, DEMO_DEFAULTS.seed),
        until: wholeNumber(opts.until, 'until', 86400 * 3650, 253402300799, nowSeconds(clock)),
      };
      const counts = await withStore(async (_s, sv) => loadDemo(sv, demo, (n) => io.stderr(`demo: ${n} records written\n`)));
      out(counts, `loaded ${counts.tokens} tokens, ${counts.markets} markets, ${counts.holders} holders, ${counts.trades} trades`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command: ${[group, action].filter(Boolean).join(' ')}`);
  }
}

/**
 * Runs the CLI; returns the exit status. The store is the server's (DATABASE_URL, else
 * DATABASE_PATH). With a bus (REDIS_URL, or a PostgreSQL store's LISTEN/NOTIFY) the CLI's commits
 * are announced on it, as a server instance announces its own, so every running instance drops
 * what they change from its caches and streams them (docs/operations.md, Many instances).
 */
export async function main(argv: string[], io: Io): Promise<number> {
  let opened: { store: AnyStore; coord: Coord } | null = null;
  const withStore = async <T>(fn: (store: AnyStore, services: Services) => Promise<T>): Promise<T> => {
    const config = loadConfig(io.env);
    const store = await openConfiguredStore(config);
    const services = createServices({ store, clock: systemClock, config });
    const chainRefused = await claimDefaultChain(services);
    if (chainRefused !== null) {
      await store.close();
      throw new ConfigError(chainRefused);
    }
    const coord = createCoord({ config, store, logger: createLogger('warn', undefined, config.instanceId), registry: services.metrics.registry });
    opened = { store, coord };
    await coord.ready(3000);
    return fn(store, services);
  };
  try {
    return await run(argv, io, withStore);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`error: ${err.message} (cli --help lists the commands)\n`);
      return 2;
    }
    if (err instanceof CommandError || err instanceof AccountError || err instanceof ConfigError || err instanceof SchemaTooNewError) {
      io.stderr(`error: ${err.message}\n`);
      return 1;
    }
    io.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    const o = opened as { store: AnyStore; coord: Coord } | null;
    if (o !== null) {
      // What was committed is announced, even when a later step failed.
      await o.coord.drain();
      await o.coord.close();
      await o.store.close();
    }
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  main(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    stdin: process.stdin,
    env: process.env,
  }).then((code) => {
    process.exitCode = code;
  });
}
