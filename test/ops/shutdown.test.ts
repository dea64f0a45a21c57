/**
 * Graceful shutdown (docs/operations.md): SIGTERM while requests are in flight lets every one of
 * them finish with an answer (none is reset), closes the store cleanly and exits 0.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet, spawnServer, type RawAnswer } from './support.js';

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'ops-shutdown-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FAR = 253402300000;

describe('SIGTERM under load', () => {
  it('answers every request in flight, closes the store and exits 0', async () => {
    const dbPath = join(dir, 'demo.db');
    // A demo store of 4 tokens and 30 days of trades, made by the CLI.
    const made = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'demo', '--tokens', '4', '--json'], {
      env: { ...process.env, DATABASE_PATH: dbPath },
      encoding: 'utf8',
    });
    expect(made.status).toBe(0);

    const peek = new Database(dbPath, { readonly: true });
    const busiest = peek
      .prepare('SELECT t.address FROM tokens t JOIN trades r ON r.token_id = t.id GROUP BY t.id ORDER BY count(*) DESC LIMIT 1')
      .pluck()
      .get() as string;
    peek.close();
    expect(busiest).toBeTruthy();

    const server = await spawnServer({ DATABASE_PATH: dbPath, DEMO_DATA: 'off' });
    // 5000 bars of the busiest token: tens of ms each, so the later ones wait their turn for
    // seconds (a different `to` for each, so no cache answers them). Well within the 10 s drain.
    const path = (i: number) => `/udf/history?symbol=${busiest}&resolution=15&countback=5000&to=${FAR - i}`;
    const N = 40;
    let signalled = false;
    let answeredAfterSignal = 0;
    const all: Promise<RawAnswer>[] = [];
    for (let i = 0; i < N; i++) {
      all.push(
        rawGet(server.port, path(i)).then((a) => {
          if (signalled) answeredAfterSignal++;
          return a;
        }),
      );
    }
    // Signal once the first answer is back: the rest are queued on open connections.
    await Promise.race(all);
    server.child.kill('SIGTERM');
    signalled = true;
    const answers = await Promise.all(all);
    const exit = await server.exit;

    const failures = answers.filter((a) => 'error' in a || a.status !== 200);
    expect(failures).toEqual([]);
    for (const a of answers) if (!('error' in a)) expect(JSON.parse(a.body).s).toBe('ok');
    // The signal really came while requests were in flight.
    expect(answeredAfterSignal).toBeGreaterThan(0);
    expect(exit).toEqual({ code: 0, signal: null });

    // Closed cleanly: SQLite checkpoints and removes the WAL when the last connection closes.
    expect(existsSync(`${dbPath}-wal`)).toBe(false);
    const after = new Database(dbPath);
    expect(after.pragma('integrity_check', { simple: true })).toBe('ok');
    after.close();
    // New connections are refused once it is gone.
    const late = await rawGet(server.port, '/healthz');
    expect('error' in late).toBe(true);
  }, 180_000);
});
