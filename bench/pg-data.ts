/**
 * The benchmark's data set on PostgreSQL (`npm run bench -- --store postgres`; docs/operations.md,
 * Benchmark and performance): the SQLite data set of bench/data.ts copied once, with the copier of
 * `cli migrate-store` (src/store/pg/copy-store.ts), into a database named after the set and its
 * code fingerprint, so reruns reuse it; each pass then serves a fresh database made from it with
 * `CREATE DATABASE ... TEMPLATE` (PostgreSQL's copy of a file, as the SQLite passes copy theirs),
 * provisioned through the services as bench/provision.ts does, and dropped after the pass.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import pg from 'pg';
import { copySqliteToPg } from '../src/store/pg/copy-store.js';
import { openPgStore } from '../src/store/pg/pg-store.js';
import { createServices } from '../src/services/index.js';
import { BENCH_PLAN_RPM, registerToken, type Provisioned } from './provision.js';

/** The same server URL with another database name. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * The cached data set's database name for a SQLite data set file (store-t...-<fingerprint>.db);
 * one over PostgreSQL's 63 bytes keeps its fingerprint and hashes the rest.
 */
export function dataDatabaseName(sqliteFile: string): string {
  const name = `bench_${basename(sqliteFile)
    .replace(/^store-/, '')
    .replace(/\.db$/, '')}`
    .replace(/[^a-z0-9_]/gi, '_')
    .toLowerCase();
  if (name.length <= 63) return name;
  return `bench_${createHash('sha256').update(name).digest('hex').slice(0, 16)}_${name.slice(-12)}`;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function databaseExists(admin: pg.Client, name: string): Promise<boolean> {
  return ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0;
}

export type PgDataSet = { name: string; url: string; copiedMs: number | null; rows: number | null };

/**
 * The cached copy of the SQLite data set at `sqlitePath` on the server `serverUrl` names, copied
 * when missing (into `<name>_tmp`, renamed at the end, so an interrupted copy is never used), then
 * vacuumed and analysed: a freshly copied database has no planner statistics until autovacuum
 * gets to it, and a pass must not measure that.
 */
export async function ensurePgDataSet(
  serverUrl: string,
  sqlitePath: string,
  opts: { regenerate?: boolean; onTable?: (table: string, rows: number) => void } = {},
): Promise<PgDataSet> {
  const name = dataDatabaseName(sqlitePath);
  const url = withDatabase(serverUrl, name);
  const tmp = `${name}_tmp`;
  const exists = await withClient(serverUrl, async (admin) => {
    if (opts.regenerate) await admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    else if (await databaseExists(admin, name)) return true;
    await admin.query(`DROP DATABASE IF EXISTS ${ident(tmp)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${ident(tmp)}`);
    return false;
  });
  if (exists) return { name, url, copiedMs: null, rows: null };
  const t0 = Date.now();
  const result = await withClient(withDatabase(serverUrl, tmp), async (client) => {
    const copied = await copySqliteToPg({ sqlitePath, client, onTable: opts.onTable });
    await client.query('VACUUM ANALYZE');
    return copied;
  });
  await withClient(serverUrl, (admin) => admin.query(`ALTER DATABASE ${ident(tmp)} RENAME TO ${ident(name)}`));
  return { name, url, copiedMs: Date.now() - t0, rows: result.rows };
}

export type WorkDatabase = { name: string; url: string; drop(): Promise<void> };

/** A fresh database made from the cached data set (no session may be open on it meanwhile). */
export async function makeWorkDatabase(serverUrl: string, dataSet: string, label: string): Promise<WorkDatabase> {
  const name = `bench_work_${process.pid}_${label.replace(/[^a-z0-9_]/gi, '_')}`.toLowerCase();
  await withClient(serverUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${ident(name)} TEMPLATE ${ident(dataSet)}`);
  });
  return {
    name,
    url: withDatabase(serverUrl, name),
    drop: () => withClient(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`)).then(() => undefined),
  };
}

/** The bench tenant and key in the database `url` names, as bench/provision.ts makes them in a file. */
export async function provisionPg(url: string, anchorMs: number, hot: string): Promise<Provisioned> {
  const store = await openPgStore(url, { instanceId: 'bench-provision', max: 2 });
  try {
    const services = createServices({ store, clock: { now: () => anchorMs } });
    const tenant = await services.accounts.createTenant({ name: 'bench', plan: 'enterprise' });
    const { secret } = await services.accounts.createKey(tenant.id, { name: 'bench', scopes: ['read', 'ingest'] });
    await store.pool.query("UPDATE plans SET requests_per_minute = $1 WHERE name = 'enterprise'", [BENCH_PLAN_RPM]);
    const registered = await registerToken(services, tenant.id, hot);
    return { tenantId: tenant.id, secret, registered };
  } finally {
    await store.close();
  }
}

/**
 * Process ids of the server sessions on database `name`, when the server runs on this machine
 * (loopback): their CPU is the database's share of a pass. Empty for a remote server, whose
 * process ids mean nothing here.
 */
export async function sessionPids(serverUrl: string, name: string): Promise<number[]> {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(serverUrl).hostname)) return [];
  return withClient(serverUrl, async (admin) =>
    (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name])).rows.map((r) => r.pid),
  );
}
