import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { start } from '../src/server.js';
import type { Store } from '../src/store/sqlite/db.js';

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'srv-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('server', () => {
  it('loads the demo data into an empty store, serves it, and stops cleanly', async () => {
    const running = await start({ PORT: '0', DATABASE_PATH: join(dir, 's.db'), DEMO_FEED: 'off', LOG_LEVEL: 'silent' });
    try {
      const { port } = running.server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
      expect((running.store as Store).db.prepare('SELECT count(*) FROM tokens').pluck().get()).toBe(20);
      expect((running.store as Store).db.prepare('SELECT count(*) FROM trades').pluck().get()).toBeGreaterThan(50_000);
    } finally {
      await running.stop();
    }
    expect((running.store as Store).db.open).toBe(false);
  }, 60_000);

  it('does not load demo data when DEMO_DATA=off', async () => {
    const running = await start({ PORT: '0', DATABASE_PATH: join(dir, 'e.db'), DEMO_DATA: 'off', LOG_LEVEL: 'silent' });
    expect((running.store as Store).db.prepare('SELECT count(*) FROM tokens').pluck().get()).toBe(0);
    await running.stop();
  });

  /** Runs the server with `env` and gives its exit status and stderr. */
  async function failedStart(env: Record<string, string>): Promise<{ code: unknown; err: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env: { ...process.env, DEMO_DATA: 'off', DEMO_FEED: 'off', ...env } });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((r) => child.on('exit', r));
    return { code, err: err.trim() };
  }

  it('refuses a bad variable with one line naming it and exit status 1', async () => {
    const { code, err } = await failedStart({ PORT: 'eighty', DATABASE_PATH: join(dir, 'x.db') });
    expect(code).toBe(1);
    expect(err).toMatch(/^error: invalid PORT/);
    expect(err.split('\n')).toHaveLength(1);
  });

  it('names DATABASE_PATH when the store cannot be opened, and HOST and PORT when it cannot listen', async () => {
    const notAFile = await failedStart({ PORT: '0', DATABASE_PATH: dir });
    expect(notAFile.code).toBe(1);
    expect(notAFile.err).toMatch(new RegExp(`^error: DATABASE_PATH ${dir} cannot be opened: `));
    expect(notAFile.err.split('\n')).toHaveLength(1);

    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    try {
      const port = String((taken.address() as AddressInfo).port);
      const busy = await failedStart({ PORT: port, HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'b.db') });
      expect(busy.code).toBe(1);
      expect(busy.err).toMatch(new RegExp(`^error: cannot listen on HOST 127.0.0.1, PORT ${port}: .*EADDRINUSE`));
      expect(busy.err.split('\n')).toHaveLength(1);
    } finally {
      taken.close();
    }
  });

  it('exits 0 on SIGTERM, and logs the shutdown (on SQLite too)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, PORT: '0', DATABASE_PATH: join(dir, 't.db'), DEMO_DATA: 'off', LOG_LEVEL: 'info' },
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    await new Promise<void>((resolve) => child.stderr.on('data', () => err.includes('"urls"') && resolve()));
    const before = err.length;
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.on('exit', (c, sig) => r(c ?? sig)));
    expect(code).toBe(0);
    const said = err
      .slice(before)
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string });
    expect(said.map((l) => [l.level, l.msg, l.reason])).toEqual([
      [30, 'shutting down: answering the requests in flight (at most 10 s)', 'SIGTERM'],
      [30, 'stopped', 'SIGTERM'],
    ]);
  });
});
