/**
 * A process given only DATABASE_URL (the CLI as docs/operations.md runs it) beside two server
 * processes on PostgreSQL and Redis (docs/operations.md, Many instances): the instances also
 * LISTEN on the database's own channel, so a key the CLI revokes is 401 on both at their very
 * next request (a revoked read,manage key mints nothing), and a CLI ingest drops both
 * instances' cached answers at once. And an instance with Redis connects before it listens: its
 * first answer already says "redis":"up".
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aMarket, aToken, aTrade, ndjson } from '../helpers/builders.js';
import { freshDatabase, type FreshDatabase } from './support.js';
import { freePort, ownRedis, type OwnRedis } from './instances.js';

let db: FreshDatabase;
let redis: OwnRedis;
let dir: string;
const servers: { id: string; child: ReturnType<typeof spawn>; base: string; first: { status: number; body: string } }[] = [];

/** The CLI as an operator runs it: its own process, DATABASE_URL only (no REDIS_URL). */
function cli(...args: string[]): { code: number | null; out: string } {
  const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
  delete env.REDIS_URL;
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout };
}

/** One GET on a fresh connection: the status and body, or null while nothing listens. */
const rawGet = (port: number, path: string): Promise<{ status: number; body: string } | null> =>
  new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve(null));
  });

/**
 * One request on a fresh connection. Not fetch: its pooled keep-alive connection sits idle while
 * a CLI process runs (seconds on a loaded machine), and a request sent on it as the server's
 * keep-alive timeout closes it fails with "other side closed" before the server sees it.
 */
const call = (
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });

/** Starts an instance on a known port and keeps asking /healthz from the start: its first answer is kept. */
async function instance(id: string): Promise<(typeof servers)[number]> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      INSTANCE_ID: id,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      DEMO_DATA: 'off',
      DEMO_FEED: 'off',
    },
    stdio: 'ignore',
  });
  let first: { status: number; body: string } | null = null;
  for (let i = 0; i < 6000 && first === null; i++) {
    if (child.exitCode !== null) throw new Error(`${id} exited with ${child.exitCode}`);
    first = await rawGet(port, '/healthz');
    if (first === null) await new Promise((r) => setTimeout(r, 5));
  }
  if (first === null) throw new Error(`${id} never answered`);
  const s = { id, child, base: `http://127.0.0.1:${port}`, first };
  servers.push(s);
  return s;
}

beforeAll(async () => {
  db = await freshDatabase('cli_heard');
  redis = await ownRedis();
  await redis.start();
  dir = mkdtempSync(join(tmpdir(), 'cli-heard-'));
  // Migrates the fresh database before the instances race to.
  expect(cli('tenants', 'list', '--json').code).toBe(0);
  await Promise.all([instance('heard-a'), instance('heard-b')]);
}, 120_000);

afterAll(async () => {
  for (const s of servers) {
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
  }
  redis?.kill();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('instances on PostgreSQL and Redis beside a CLI given only DATABASE_URL', () => {
  it('say "redis":"up" in their very first answer (they connect before they listen)', () => {
    expect(servers.map((s) => s.id).sort()).toEqual(['heard-a', 'heard-b']);
    for (const s of servers) {
      expect(s.first.status).toBe(200);
      expect(JSON.parse(s.first.body)).toEqual({ status: 'ok', instance: s.id, store: { kind: 'postgres', state: 'up' }, redis: 'up' });
    }
  });

  it('refuse a key the CLI revoked at the next request on both, and it mints no key', async () => {
    const tenant = (JSON.parse(cli('tenants', 'create', '--name', 'Heard', '--plan', 'pro', '--json').out) as { id: string }).id;
    const made = JSON.parse(cli('keys', 'create', '--tenant', tenant, '--scopes', 'read,manage', '--json').out) as { id: string; secret: string };
    const me = (base: string) => call(base, '/v1/me', { headers: { 'x-api-key': made.secret } });
    // Both instances have the key in their caches.
    for (const s of servers) for (let i = 0; i < 3; i++) expect((await me(s.base)).status).toBe(200);

    expect(cli('keys', 'revoke', '--id', made.id, '--json').code).toBe(0);

    for (const s of servers) {
      const res = await me(s.base);
      expect(res.status).toBe(401);
      expect((JSON.parse(res.body) as { error: { message: string } }).error.message).toBe('the API key was revoked');
      const mint = await call(s.base, '/v1/keys', { method: 'POST', headers: { 'x-api-key': made.secret, 'content-type': 'application/json' }, body: '{}' });
      expect(mint.status).toBe(401);
    }
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      const rows = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1', [tenant])).rows;
      expect(rows[0]!.n).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it("show a CLI ingest in both instances' cached reads at their next request", async () => {
    const token = aToken({ name: 'Heard Token' });
    const market = aMarket(token.address);
    const file1 = join(dir, 'one.ndjson');
    writeFileSync(file1, ndjson([token, market, aTrade(token.address, { market: market.address, blockTime: 1_700_000_000, volumeUsd: 3 })]));
    expect(cli('ingest', file1, '--json').code).toBe(0);
    // A fixed range: the answer's cache key does not move with the clock, only a change notice drops it.
    const volumes = async (base: string) =>
      (JSON.parse((await call(base, `/udf/history?symbol=${token.address}&resolution=1D&from=1699900000&to=1700100000`)).body) as { v: number[] }).v;
    for (const s of servers) for (let i = 0; i < 2; i++) expect(await volumes(s.base)).toEqual([3]);

    const file2 = join(dir, 'two.ndjson');
    writeFileSync(file2, ndjson([aTrade(token.address, { market: market.address, blockTime: 1_700_000_500, volumeUsd: 5 })]));
    expect(cli('ingest', file2, '--json').code).toBe(0);
    for (const s of servers) expect(await volumes(s.base)).toEqual([8]);
  });
});
