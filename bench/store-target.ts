/**
 * The store a benchmark pass's server runs on (`--store sqlite|postgres|both`; docs/operations.md,
 * Benchmark and performance): a fresh, provisioned copy of the one data set per server run, as a
 * SQLite file (bench/data.ts) or as a PostgreSQL database made from the cached copy of that same
 * file (bench/pg-data.ts). The PostgreSQL server is the one `--database-url` or BENCH_DATABASE_URL
 * names, or a throwaway one started with scripts/engines.sh and stopped at the end.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../src/paths.js';
import type { BenchStoreKind } from './args.js';
import { copyStore } from './data.js';
import { ensurePgDataSet, makeWorkDatabase, provisionPg, sessionPids } from './pg-data.js';
import { provision } from './provision.js';
import { measureStartup, type Startup } from './startup.js';

/** One server run's store: what startBenchServer is given, and the bench key in it. */
export type PassStore = {
  kind: BenchStoreKind;
  storePath: string;
  /** Set for PostgreSQL: the server's DATABASE_URL. */
  databaseUrl?: string;
  secret: string;
  registered: boolean;
  /** Process ids of the database's sessions on this machine (none for SQLite or a remote server). */
  databasePids(): Promise<number[]>;
  /** Drops the copy (PostgreSQL; the SQLite work file is overwritten by the next run). */
  dispose(): Promise<void>;
};

export type StoreTarget = {
  kind: BenchStoreKind;
  /** A fresh copy of the data set; provisioned with the bench key unless `provisioned` is false. */
  preparePass(label: string, anchorMs: number, hot: string, provisioned?: boolean): Promise<PassStore>;
  close(): Promise<void>;
};

const none = { secret: '', registered: false };

/** The SQLite data set file, copied to `<dataDir>/work.db` for each run. */
export function sqliteTarget(dataDir: string, dataPath: string): StoreTarget {
  return {
    kind: 'sqlite',
    async preparePass(_label, anchorMs, hot, provisioned = true) {
      const work = join(dataDir, 'work.db');
      copyStore(dataPath, work);
      const key = provisioned ? await provision(work, anchorMs, hot) : none;
      return { kind: 'sqlite', storePath: work, secret: key.secret, registered: key.registered, databasePids: async () => [], dispose: async () => undefined };
    },
    close: async () => undefined,
  };
}

/** Where a throwaway server lives: per checkout, apart from the engine tests' one. */
const throwawayEnv = () => ({
  ...process.env,
  ENGINES_DIR: join(tmpdir(), `bench-engines-${createHash('sha256').update(projectRoot).digest('hex').slice(0, 8)}`),
  ENGINES_PG_PORT: process.env.BENCH_PG_PORT ?? '54339',
  ENGINES_REDIS_PORT: process.env.BENCH_REDIS_PORT ?? '63809',
});

async function startThrowaway(say: (msg: string) => void): Promise<{ url: string; stop(): Promise<void> }> {
  const script = join(projectRoot, 'scripts', 'engines.sh');
  const env = throwawayEnv();
  say(`no --database-url nor BENCH_DATABASE_URL: starting a throwaway PostgreSQL on port ${env.ENGINES_PG_PORT} (scripts/engines.sh)`);
  const { stdout } = await promisify(execFile)(script, ['start'], { env, cwd: projectRoot });
  const url = /^TEST_DATABASE_URL=(.+)$/m.exec(stdout)?.[1];
  if (url === undefined) throw new Error(`scripts/engines.sh start printed no TEST_DATABASE_URL: ${stdout.trim()}`);
  return { url, stop: () => promisify(execFile)(script, ['stop'], { env, cwd: projectRoot }).then(() => undefined) };
}

/**
 * The PostgreSQL target: the server is found or started, the data set copied there once (cached
 * by the SQLite set's name and fingerprint), and each run gets a database made from it.
 */
export async function postgresTarget(opts: {
  databaseUrl: string | null;
  sqlitePath: string;
  regenerate: boolean;
  say: (msg: string) => void;
}): Promise<StoreTarget & { dataSet: string; copiedMs: number | null; serverUrl: string }> {
  const throwaway = opts.databaseUrl === null ? await startThrowaway(opts.say) : null;
  const serverUrl = opts.databaseUrl ?? throwaway!.url;
  try {
    let last = 0;
    const data = await ensurePgDataSet(serverUrl, opts.sqlitePath, {
      regenerate: opts.regenerate,
      onTable: (table, rows) => {
        if (Date.now() - last > 5000 || rows > 100_000) {
          last = Date.now();
          opts.say(`  copying into PostgreSQL: ${table} (${rows.toLocaleString('en')} rows) done`);
        }
      },
    });
    opts.say(
      data.copiedMs === null
        ? `postgres: reusing the data set's database ${data.name}`
        : `postgres: copied the data set into ${data.name} in ${(data.copiedMs / 1000).toFixed(1)} s (${data.rows!.toLocaleString('en')} rows, then VACUUM ANALYZE)`,
    );
    return {
      kind: 'postgres',
      dataSet: data.name,
      copiedMs: data.copiedMs,
      serverUrl,
      async preparePass(label, anchorMs, hot, provisioned = true) {
        const work = await makeWorkDatabase(serverUrl, data.name, label);
        try {
          const key = provisioned ? await provisionPg(work.url, anchorMs, hot) : none;
          return {
            kind: 'postgres',
            // Never opened (DATABASE_URL wins); not the data set, so nothing could write to it.
            storePath: join(tmpdir(), 'bench-postgres-pass-unused.db'),
            databaseUrl: work.url,
            secret: key.secret,
            registered: key.registered,
            databasePids: () => sessionPids(serverUrl, work.name),
            dispose: work.drop,
          };
        } catch (err) {
          await work.drop();
          throw err;
        }
      },
      close: async () => {
        if (throwaway !== null) await throwaway.stop();
      },
    };
  } catch (err) {
    if (throwaway !== null) await throwaway.stop().catch(() => undefined);
    throw err;
  }
}

/** A server URL as the results may show it: no password. */
function maskedUrl(url: string): string {
  const u = new URL(url);
  if (u.password !== '') u.password = '***';
  return u.toString();
}

export type PostgresInfo = { dataSet: string; copiedMs: number | null; server: string };

/** The targets of `stores`, in that order; a PostgreSQL one that cannot be had is an error, not a stop. */
export async function openTargets(opts: {
  stores: readonly BenchStoreKind[];
  databaseUrl: string | null;
  dataDir: string;
  dataPath: string;
  regenerate: boolean;
  say: (msg: string) => void;
}): Promise<{ targets: StoreTarget[]; postgres: PostgresInfo | null; error: string | null; serverUrl: string | null }> {
  const targets: StoreTarget[] = opts.stores.includes('sqlite') ? [sqliteTarget(opts.dataDir, opts.dataPath)] : [];
  if (!opts.stores.includes('postgres')) return { targets, postgres: null, error: null, serverUrl: null };
  try {
    const pg = await postgresTarget({ databaseUrl: opts.databaseUrl, sqlitePath: opts.dataPath, regenerate: opts.regenerate, say: opts.say });
    targets.push(pg);
    const server = opts.databaseUrl === null ? 'throwaway (scripts/engines.sh)' : maskedUrl(opts.databaseUrl);
    return { targets, postgres: { dataSet: pg.dataSet, copiedMs: pg.copiedMs, server }, error: null, serverUrl: pg.serverUrl };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    opts.say(`ERROR: no PostgreSQL store: ${error}`);
    return { targets, postgres: null, error, serverUrl: null };
  }
}

/** Start-up of the built server on each target's full store (bench/startup.ts), unprovisioned. */
export async function measureStartups(
  targets: readonly StoreTarget[],
  runs: number,
  anchorMs: number,
  hot: string,
  say: (msg: string) => void,
): Promise<{ startup?: Startup; postgresStartup?: Startup }> {
  const out: { startup?: Startup; postgresStartup?: Startup } = {};
  for (const target of targets) {
    say(`start-up of dist/src/server.js on the full store (${target.kind})`);
    let work: PassStore | null = null;
    try {
      work = await target.preparePass('startup', anchorMs, hot, false);
      const startup = await measureStartup(work.storePath, runs, work.databaseUrl);
      if (target.kind === 'sqlite') out.startup = startup;
      else out.postgresStartup = startup;
    } catch (err) {
      // A store that cannot even be prepared shows as a start-up that failed.
      const failed: Startup = { runs: [], medianMs: NaN, maxMs: NaN, error: err instanceof Error ? err.message : String(err) };
      if (target.kind === 'sqlite') out.startup = failed;
      else out.postgresStartup = failed;
    } finally {
      await work?.dispose();
    }
  }
  return out;
}
