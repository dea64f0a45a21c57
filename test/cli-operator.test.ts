// Operator commands as real processes on real store files: tenants set-email / set-password,
// backup while the server runs (and a restore from it), demo --remove with a server running.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/sqlite/db.js';
import { createServices } from '../src/services/index.js';
import { loadDemo } from '../src/services/demo.js';
import { demoTokens } from '../src/domain/demo-data.js';
import { systemClock } from '../src/domain/clock.js';
import { aMarket, aToken, aTrade } from './helpers/builders.js';
import { makeTestApp } from './helpers/make-test-app.js';

let dir: string;
let db: string;
let server: ChildProcess | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-op-'));
  db = join(dir, 'store.db');
});
afterEach(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
  }
  server = null;
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[], input = '') {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env: { ...process.env, DATABASE_PATH: db }, input, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout) };
}

/** The server on the test's store; resolves with its base URL once it listens. */
async function startServer(env: Record<string, string> = {}): Promise<string> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: '0', DATABASE_PATH: db, DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'info', ...env },
  });
  server = proc;
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  for (;;) {
    // The start-up URLs, one JSON log line on a pipe (src/start-banner.ts).
    const m = /"listening":"(http:\/\/[\d.]+:\d+)"/.exec(err);
    if (m) return m[1]!;
    if (proc.exitCode !== null) throw new Error(err);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const DEMO = { tokens: 5, days: 2, seed: 21 };
/** The store with a small demo set ending now, and optionally one real token with trades. */
async function seed(withReal: boolean) {
  const store = openStore(db);
  const services = createServices({ store, clock: systemClock });
  const until = Math.floor(Date.now() / 1000);
  await loadDemo(services, { ...DEMO, until });
  const real = aToken({ symbol: 'REAL', name: 'Real Token', createdAt: until - 7200 });
  if (withReal) {
    const market = aMarket(real.address);
    const trades = [1, 2, 3].map((i) => aTrade(real.address, { market: market.address, blockTime: until - 600 * i, volumeUsd: 1e9 }));
    services.ingest.ingest([real, market, ...trades].map((value, i) => ({ line: i + 1, value })));
  }
  store.close();
  return { real, until };
}

describe('tenants set-email and set-password', () => {
  it('refuses a password for a tenant without an email, and accepts it once one is set', async () => {
    const tenant = cli(['tenants', 'create', '--name', 'No Mail', '--plan', 'free', '--json']).json();
    const refused = cli(['tenants', 'set-password', '--tenant', tenant.id], 'correct horse battery\n');
    expect(refused.code).toBe(1);
    expect(refused.err).toBe(`error: tenant ${tenant.id} has no email, so it could never sign in; add one first with tenants set-email\n`);
    expect(refused.out).toBe('');

    const set = cli(['tenants', 'set-email', '--tenant', tenant.id, '--email', 'owner@nomail.test', '--json']);
    expect(set.code).toBe(0);
    expect(set.json()).toEqual({ id: tenant.id, email: 'owner@nomail.test' });
    expect(cli(['tenants', 'set-password', '--tenant', tenant.id, '--json'], 'correct horse battery\n').json()).toEqual({ id: tenant.id });

    const store = openStore(db);
    const { accounts } = createServices({ store, clock: systemClock });
    expect(await accounts.checkPassword('owner@nomail.test', 'correct horse battery')).toMatchObject({ id: tenant.id });
    store.close();
  }, 60_000);

  it('prompts on a terminal for the password, reads one line without echoing it, and sets it', async () => {
    const tenant = cli(['tenants', 'create', '--name', 'Tty', '--plan', 'free', '--email', 'tty@x.test', '--json']).json();
    // script(1) runs the CLI on a pseudo-terminal: its stdin is a TTY, as an operator's shell is.
    const command = `${process.execPath} --import tsx src/cli.ts tenants set-password --tenant ${tenant.id}`;
    const proc = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, DATABASE_PATH: db } });
    let seen = '';
    proc.stdout.on('data', (d) => (seen += d));
    const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
    for (let i = 0; !seen.includes('Enter to finish'); i++) {
      if (proc.exitCode !== null || i > 1200) throw new Error(`no prompt: ${seen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    proc.stdin.write('typed at a terminal\r');
    expect(await exited).toBe(0);
    expect(seen).toContain(`password for tenant ${tenant.id} (not shown; Enter to finish): `);
    expect(seen).toContain(`password set for ${tenant.id}`);
    expect(seen).not.toContain('typed at a terminal');
    const store = openStore(db);
    const { accounts } = createServices({ store, clock: systemClock });
    expect(await accounts.checkPassword('tty@x.test', 'typed at a terminal')).toMatchObject({ id: tenant.id });
    store.close();
  }, 60_000);

  it('refuses an email another tenant has, a malformed one, and an unknown tenant', () => {
    const a = cli(['tenants', 'create', '--name', 'A', '--plan', 'free', '--email', 'a@x.test', '--json']).json();
    const b = cli(['tenants', 'create', '--name', 'B', '--plan', 'free', '--json']).json();
    const taken = cli(['tenants', 'set-email', '--tenant', b.id, '--email', 'A@x.test']);
    expect([taken.code, taken.err]).toEqual([1, 'error: a tenant with email A@x.test exists\n']);
    expect(cli(['tenants', 'set-email', '--tenant', a.id, '--email', 'a@x.test']).code).toBe(0); // its own
    expect(cli(['tenants', 'set-email', '--tenant', b.id, '--email', 'not-an-email']).code).toBe(2);
    expect(cli(['tenants', 'set-email', '--tenant', b.id]).code).toBe(2);
    const unknown = cli(['tenants', 'set-email', '--tenant', 'ten_nope', '--email', 'c@x.test']);
    expect([unknown.code, unknown.err]).toEqual([1, 'error: no tenant with id ten_nope\n']);
  }, 60_000);
});

describe('backup', () => {
  it('copies the store while the server runs and writes to it; the copy restores', async () => {
    await seed(false);
    await startServer({ DEMO_FEED: 'on' });
    const file = join(dir, 'backup.db');
    const r = cli(['backup', file, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ file, pages: expect.any(Number), bytes: expect.any(Number) });
    expect(r.err).toMatch(/backup: 100% of \d+ pages\n$/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);

    // Restore: the copy is a complete store that serves the same tokens.
    const restored = join(dir, 'restored.db');
    copyFileSync(file, restored);
    const t = makeTestApp({ store: openStore(restored) });
    expect(t.store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    const tokens = demoTokens(DEMO);
    expect(t.store.db.prepare('SELECT count(*) FROM tokens').pluck().get()).toBe(tokens.length);
    expect((await t.http.get(`/v1/token/${tokens[0]!.address}/overview`)).status).toBe(200);
    t.close();

    const again = cli(['backup', file]);
    expect([again.code, again.err]).toEqual([1, `error: ${file} exists; choose another name or pass --force to replace it\n`]);
    expect(cli(['backup', file, '--force']).code).toBe(0);
  }, 90_000);

  it('fails clearly without a store, and needs exactly one FILE', () => {
    const none = cli(['backup', join(dir, 'b.db')]);
    expect([none.code, none.err]).toEqual([1, `error: no store at ${db} (DATABASE_PATH)\n`]);
    expect(existsSync(db)).toBe(false);
    expect(cli(['backup']).code).toBe(2);
    expect(cli(['backup', 'a.db', 'b.db']).code).toBe(2);
  }, 60_000);
});

describe('demo --remove', () => {
  it('removes every demo token and its data while the server runs; they leave trending and search', async () => {
    const { real } = await seed(true);
    const tokens = demoTokens(DEMO);
    const base = await startServer();
    const get = async (path: string) => (await fetch(base + path)).json() as Promise<Record<string, unknown>>;
    const trendingAddresses = async () => ((await get('/v1/market/trending?window=24h&limit=100')).tokens as { address: string }[]).map((t) => t.address);
    expect(await trendingAddresses()).toContain(tokens[0]!.address);
    expect(((await get(`/v1/search?q=${tokens[0]!.symbol}`)).results as unknown[]).length).toBeGreaterThan(0);

    const r = cli(['demo', '--remove', '--json']);
    expect(r.code).toBe(0);
    const removed = r.json();
    expect(removed.tokens).toBe(5);
    expect(removed.holders).toBe(tokens.reduce((s, t) => s + t.wallets.length, 0));
    expect(removed.trades).toBeGreaterThan(100);

    expect(await trendingAddresses()).toEqual([real.address]);
    expect((await get(`/v1/search?q=${tokens[0]!.symbol}`)).results).toEqual([]);
    expect((await fetch(`${base}/v1/token/${tokens[0]!.address}/overview`)).status).toBe(404);
    expect((await fetch(`${base}/v1/token/${real.address}/overview`)).status).toBe(200);

    const store = openStore(db);
    const tables = (store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).filter((t) =>
      (store.db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(t) as string[]).includes('token_id'),
    );
    expect(tables.length).toBeGreaterThanOrEqual(8);
    for (const table of tables.filter((t) => t !== 'token_changes')) {
      expect(store.db.prepare(`SELECT count(*) FROM "${table}" WHERE token_id NOT IN (SELECT id FROM tokens)`).pluck().get(), table).toBe(0);
    }
    // The change log is not data of the tokens: it names each removed token once, after the removal,
    // so a running server's discovery boards drop them.
    expect(store.db.prepare('SELECT count(*) FROM token_changes WHERE token_id NOT IN (SELECT id FROM tokens)').pluck().get()).toBe(5);
    expect(store.db.prepare('SELECT count(*) FROM trades').pluck().get()).toBe(3);
    expect(store.db.prepare("SELECT count(*) FROM meta WHERE key = 'demo'").pluck().get()).toBe(0);
    store.close();

    expect(cli(['demo', '--remove', '--json']).json()).toEqual({ tokens: 0, markets: 0, trades: 0, holders: 0, events: 0 });
    expect(cli(['demo', '--remove', '--tokens', '3']).code).toBe(2);
  }, 90_000);

  it('gives the space the demo held back to the file system: the file shrinks and the WAL is emptied', async () => {
    await seed(true);
    const before = statSync(db).size;
    const r = cli(['demo', '--remove', '--json']);
    expect(r.code).toBe(0);
    const { reclaimed, trades } = r.json();
    expect(trades).toBeGreaterThan(100);
    expect(reclaimed.vacuumed).toBe(true);
    // The removal's own transaction went through the WAL first.
    expect(reclaimed.fileBytesBefore).toBe(before);
    expect(reclaimed.walBytesBefore).toBeGreaterThan(0);
    expect(reclaimed.fileBytesAfter).toBe(statSync(db).size);
    // What is left is the schema and three real trades: a small part of the demo's file.
    expect(reclaimed.fileBytesAfter).toBeLessThan(reclaimed.fileBytesBefore / 2);
    expect(reclaimed.walBytesAfter).toBe(0);
    expect(existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0).toBe(0);
    expect(r.err).toBe('demo --remove: giving the freed space back to the file system\n');
    const store = openStore(db);
    expect(store.db.prepare('SELECT count(*) FROM trades').pluck().get()).toBe(3);
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    store.close();
  }, 90_000);
});
