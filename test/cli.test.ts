import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { openStore } from '../src/store/sqlite/db.js';
import { aToken, aTrade, homeMarket, marketOf, ndjson, withMarket } from './helpers/builders.js';
import { createServices } from '../src/services/index.js';
import { systemClock } from '../src/domain/clock.js';

let dir: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-'));
  db = join(dir, 'test.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], stdin = '') {
  let out = '';
  let err = '';
  const code = await main(args, {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
    stdin: Readable.from([stdin]),
    env: { DATABASE_PATH: db },
  });
  return { code, out, err, json: () => JSON.parse(out) };
}

const count = (sql: string) => {
  const s = openStore(db);
  try {
    return s.db.prepare(sql).pluck().get();
  } finally {
    s.close();
  }
};

describe('cli', () => {
  it('creates and lists tenants with --json printing exactly one document', async () => {
    const r = await cli(['tenants', 'create', '--name', 'Acme', '--plan', 'pro', '--email', 'ops@acme.test', '--json']);
    expect(r.code).toBe(0);
    const t = r.json();
    expect(t).toEqual({ id: expect.stringMatching(/^ten_/), name: 'Acme', plan: 'pro', email: 'ops@acme.test' });
    expect(r.out.trim().split('\n')).toHaveLength(1);
    const list = await cli(['tenants', 'list', '--json']);
    expect(list.json().tenants.map((x: { id: string }) => x.id)).toEqual([t.id]);
  });

  it('creates a key whose secret is shown once, lists it without the secret, and revokes it', async () => {
    const tenant = (await cli(['tenants', 'create', '--name', 'A', '--plan', 'free', '--json'])).json();
    const k = await cli(['keys', 'create', '--tenant', tenant.id, '--scopes', 'read,ingest', '--json']);
    expect(k.code).toBe(0);
    const key = k.json();
    expect(key.secret).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(key.scopes).toEqual(['read', 'ingest']);
    expect(key.prefix).toBe(key.secret.slice(0, 13));
    const list = await cli(['keys', 'list', '--tenant', tenant.id, '--json']);
    expect(list.out).not.toContain(key.secret);
    expect(list.json().keys[0]).toMatchObject({ id: key.id, status: 'active' });
    const revoked = await cli(['keys', 'revoke', '--id', key.id, '--json']);
    expect(revoked.json().key).toMatchObject({ id: key.id, status: 'revoked' });
    expect(count(`SELECT count(*) FROM api_keys WHERE hash = '${key.secret}'`)).toBe(0);
  });

  it('creates a read,manage key when no --scopes is given', async () => {
    const tenant = (await cli(['tenants', 'create', '--name', 'B', '--plan', 'free', '--json'])).json();
    const k = await cli(['keys', 'create', '--tenant', tenant.id, '--json']);
    expect(k.code).toBe(0);
    expect(k.json().scopes).toEqual(['read', 'manage']);
    const bad = await cli(['keys', 'create', '--tenant', tenant.id, '--scopes', 'read,admin']);
    expect(bad.code).toBe(2);
  });

  it('sets a password from stdin', async () => {
    const tenant = (await cli(['tenants', 'create', '--name', 'A', '--plan', 'free', '--email', 'a@b.test', '--json'])).json();
    const r = await cli(['tenants', 'set-password', '--tenant', tenant.id, '--json'], 'correct horse battery\n');
    expect(r.code).toBe(0);
    expect(count(`SELECT password_hash LIKE 'scrypt$%' FROM tenants`)).toBe(1);
    const store = openStore(db);
    const { accounts, sessions } = createServices({ store, clock: systemClock });
    expect(await accounts.checkPassword('a@b.test', 'correct horse battery')).toMatchObject({ id: tenant.id });
    expect(await accounts.checkPassword('a@b.test', 'wrong horse battery')).toBeNull();
    await sessions.create(tenant.id);
    store.close();
    await cli(['tenants', 'set-password', '--tenant', tenant.id], 'another password\n');
    expect(count('SELECT count(*) FROM dashboard_sessions')).toBe(0);
    expect((await cli(['tenants', 'set-password', '--tenant', tenant.id], 'short\n')).code).toBe(1);
  });

  it('ingests NDJSON files, counting duplicates, with progress on stderr only', async () => {
    const tok = aToken();
    const file = join(dir, 'a.ndjson');
    writeFileSync(file, ndjson([...withMarket(tok), aTrade(tok.address, { signature: 's1' }), aTrade(tok.address, { signature: 's2' })]));
    const r = await cli(['ingest', file, '--json']);
    expect(r.code).toBe(0);
    // The token, its market and two trades; again, the two upserts count as accepted.
    expect(r.json()).toEqual({ accepted: 4, duplicates: 0 });
    expect(r.err).toMatch(/records written/);
    const again = await cli(['ingest', file, '--json']);
    expect(again.json()).toEqual({ accepted: 2, duplicates: 2 });
  });

  it('reads NDJSON from stdin with -', async () => {
    const tok = aToken();
    const r = await cli(['ingest', '-', '--json'], ndjson([...withMarket(tok), aTrade(tok.address)]));
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ accepted: 3, duplicates: 0 });
  });

  it('refuses a file with a bad record whole, naming the line, exit 1, nothing written', async () => {
    const tok = aToken();
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, ndjson([tok, homeMarket(tok.address)]) + '{not json\n' + JSON.stringify(aTrade(aToken().address)) + '\n');
    const r = await cli(['ingest', file]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('line 3: not valid JSON');
    expect(r.err).toMatch(/line 4: unknown token/);
    expect(r.out).toBe('');
    expect(count('SELECT count(*) FROM tokens')).toBe(0);
  });

  it('refuses a file whose trade names a market neither stored nor earlier in the file, naming the line, nothing written', async () => {
    const tok = aToken();
    const file = join(dir, 'stray.ndjson');
    // The market record comes after the trade that names it: it does not count.
    writeFileSync(file, ndjson([tok, aTrade(tok.address), homeMarket(tok.address)]));
    const r = await cli(['ingest', file]);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toEqual([
      `${file}: line 2: unknown market ${marketOf(tok.address)}`,
      `error: ${file}: 1 invalid record(s); nothing of it was written`,
    ]);
    expect(count('SELECT count(*) FROM tokens')).toBe(0);
    expect(count('SELECT count(*) FROM markets')).toBe(0);
  });

  it('counts every bad record of a file with more than the 100 it lists', async () => {
    const file = join(dir, 'many-bad.ndjson');
    const unknown = aToken().address;
    writeFileSync(file, Array.from({ length: 150 }, (_, i) => JSON.stringify(aTrade(unknown, { signature: `bad${i}` }))).join('\n') + '\n{oops\n');
    const r = await cli(['ingest', file]);
    expect(r.code).toBe(1);
    const lines = r.err.trim().split('\n');
    expect(lines.filter((l) => /: line \d+: unknown token/.test(l))).toHaveLength(100);
    expect(lines).toContain(`${file}: line 101: too many errors; the rest are not listed`);
    expect(lines.at(-1)).toBe(`error: ${file}: 151 invalid record(s); nothing of it was written`);
  });

  it('writes a large file in several transactions with progress', async () => {
    const tok = aToken();
    const file = join(dir, 'big.ndjson');
    writeFileSync(
      file,
      ndjson([...withMarket(tok), ...Array.from({ length: 12_000 }, (_, i) => aTrade(tok.address, { signature: `big${i}`, blockTime: 1_700_000_000 + i }))]),
    );
    const r = await cli(['ingest', file, '--json']);
    expect(r.json()).toEqual({ accepted: 12_002, duplicates: 0 });
    expect(r.err.trim().split('\n').length).toBeGreaterThanOrEqual(3);
  });

  it('loads the demo set and prints its counts', async () => {
    const r = await cli(['demo', '--tokens', '3', '--days', '2', '--seed', '5', '--until', '1700000000', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ tokens: 3, seed: 5, until: 1_700_000_000, days: 2 });
    expect(count('SELECT count(*) FROM trades')).toBe(r.json().trades);
    // again on the same store: every trade is already there, so none is loaded
    const again = await cli(['demo', '--tokens', '3', '--days', '2', '--seed', '5', '--until', '1700000000', '--json']);
    expect(again.json()).toMatchObject({ tokens: 3, trades: 0 });
  });

  it.each([
    [[], 2],
    [['bogus'], 2],
    [['tenants', 'create', '--name', 'x'], 2],
    [['tenants', 'create', '--name', 'x', '--plan', 'gold'], 2],
    [['keys', 'create'], 2],
    [['keys', 'list', '--tenant', 'x', '--nope'], 2],
    [['demo', '--tokens', '1e3'], 2],
    [['ingest'], 2],
    [['ingest', '/no/such/file.ndjson'], 1],
    [['keys', 'revoke', '--id', 'key_missing'], 1],
    [['keys', 'create', '--tenant', 'ten_missing'], 1],
  ])('exits %j with status %i and one clear line on stderr', async (args, code) => {
    const r = await cli(args as string[]);
    expect(r.code).toBe(code);
    expect(r.err).toMatch(/^error: [^\n]+\n$/);
  });

  it('runs as a real process through npm run cli with output on stdout only', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'tenants', 'create', '--name', 'P', '--plan', 'free', '--json'], {
      env: { ...process.env, DATABASE_PATH: db },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'P', plan: 'free' });
    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'nonsense'], { env: { ...process.env, DATABASE_PATH: db }, encoding: 'utf8' });
    expect(bad.status).toBe(2);
  });
});
