/**
 * Writers never fail on a lock held by another process (docs/api.md, Concurrent writers): a real CLI
 * child process ingests a file into the store a server is using, and meanwhile every kind of
 * request that writes (POST /v1/ingest, dashboard sign-in, POST /v1/tokens/register) answers
 * without a 500, and the CLI finishes without "database is locked".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/sqlite/db.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, homeMarket } from '../helpers/builders.js';
import { aTenantWithPassword } from '../dashboard/support.js';

let dir: string;
let t: TestApp | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'writers-'));
});
afterEach(() => {
  t?.close();
  t = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const CLI_TRADES = 12_000;

describe('a CLI ingest beside the server', () => {
  it('makes no request fail and never aborts with "database is locked"', async () => {
    const dbPath = join(dir, 'shared.db');
    t = makeTestApp({ env: { DATABASE_PATH: dbPath }, store: openStore(dbPath) });
    const app = t;
    const cliToken = aToken({ symbol: 'CLI' });
    const ours = aToken({ symbol: 'OURS' });
    const m = aMarket(cliToken.address);
    app.ingest([cliToken, ours, m, homeMarket(ours.address)]);
    const file = join(dir, 'big.ndjson');
    const lines = Array.from({ length: CLI_TRADES }, (_, i) =>
      JSON.stringify(aTrade(cliToken.address, { market: m.address, blockTime: 1_700_000_000 + i, priceUsd: 1 + (i % 50) / 100 })),
    );
    writeFileSync(file, lines.join('\n') + '\n');
    const ingestKey = app.makeKey({ plan: 'enterprise', scopes: ['read', 'manage', 'ingest'] });
    const { email, password } = await aTenantWithPassword(app, { plan: 'enterprise' });

    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'ingest', file, '--json'], {
      env: { ...process.env, DATABASE_PATH: dbPath, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let writing = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/records written/.test(stderr)) writing = true;
    });
    let running = true;
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => {
        running = false;
        resolve(code);
      }),
    );
    while (!writing && running) await new Promise((r) => setTimeout(r, 10));

    const statuses: Record<string, number[]> = { ingest: [], signIn: [], register: [] };
    const failures: string[] = [];
    let i = 0;
    while (running) {
      i++;
      const batch = [aTrade(ours.address, { blockTime: 1_700_000_000 + i }), aTrade(ours.address, { blockTime: 1_700_000_000 - i })]
        .map((r) => JSON.stringify(r))
        .join('\n');
      const ing = await app.http.post('/v1/ingest').set('x-api-key', ingestKey.secret).set('Content-Type', 'application/x-ndjson').send(batch);
      statuses.ingest!.push(ing.status);
      if (ing.status !== 200) failures.push(`ingest ${ing.status} ${ing.text}`);
      const reg = await app.http
        .post('/v1/tokens/register')
        .set('x-api-key', ingestKey.secret)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ address: aToken().address }));
      statuses.register!.push(reg.status);
      if (reg.status !== 201) failures.push(`register ${reg.status} ${reg.text}`);
      // Sign-in attempts are throttled per IP; a few are enough to meet the CLI's transactions.
      if (statuses.signIn!.length < 15) {
        const s = await app.http.post('/dashboard/api/sign-in').send({ email, password });
        statuses.signIn!.push(s.status);
        if (s.status !== 200) failures.push(`sign-in ${s.status} ${s.text}`);
      }
    }
    const code = await exited;
    expect(stderr).not.toMatch(/locked|busy|error/i);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ accepted: CLI_TRADES, duplicates: 0 });
    expect(failures).toEqual([]);
    // The requests really ran while the CLI was writing.
    expect(statuses.ingest!.length).toBeGreaterThanOrEqual(3);
    expect(statuses.signIn!.length).toBeGreaterThanOrEqual(3);
    const count = app.store.db.prepare('SELECT count(*) FROM trades WHERE token_id = (SELECT id FROM tokens WHERE address = ?)').pluck();
    expect(count.get(cliToken.address)).toBe(CLI_TRADES);
    expect(count.get(ours.address)).toBe(2 * statuses.ingest!.length);
  }, 120_000);
});
