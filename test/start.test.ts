// The service as `npm start` runs it, in a child process on a real store file: the URLs it
// prints once listening, and the log line when the demo feed stops because real data arrived.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/sqlite/db.js';
import { createServices } from '../src/services/index.js';
import { loadDemo } from '../src/services/demo.js';
import { aToken } from './helpers/builders.js';

let dir: string;
let child: ChildProcess | null = null;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'start-'))));
afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  child = null;
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the server; resolves with its output so far once `done(stdout, stderr)` holds. */
function run(env: Record<string, string>) {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
  });
  child = proc;
  const out = { stdout: '', stderr: '' };
  proc.stdout.on('data', (d) => (out.stdout += d));
  proc.stderr.on('data', (d) => (out.stderr += d));
  const until = (done: (o: typeof out) => boolean) =>
    new Promise<typeof out>((resolve, reject) => {
      const check = () => {
        if (done(out)) resolve(out);
        else if (proc.exitCode !== null) reject(new Error(`server exited: ${out.stderr}`));
        else setTimeout(check, 50);
      };
      check();
    });
  return { until };
}

/** A store file holding a small demo set (the newest trade a few seconds ago). */
async function demoStore(path: string) {
  const store = openStore(path);
  const services = createServices({ store, clock: { now: () => Date.now() } });
  await loadDemo(services, { tokens: 4, days: 1, seed: 3, until: Math.floor(Date.now() / 1000) });
  const newest = store.db.prepare('SELECT address FROM tokens ORDER BY last_trade_at DESC, id LIMIT 1').pluck().get() as string;
  store.close();
  return newest;
}

describe('start-up', () => {
  it('says the URLs of the pages, docs and chart SDK once listening, as one JSON log line when stderr is not a terminal', async () => {
    const path = join(dir, 's.db');
    const newest = await demoStore(path);
    const { stderr } = await run({ DATABASE_PATH: path, DEMO_FEED: 'off' }).until((o) => o.stderr.includes('"urls"'));
    // Every line of the log stream is JSON (the plain banner is for a terminal: test/start-banner.test.ts).
    const lines = stderr
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { msg: string; urls?: Record<string, string> });
    const { urls } = lines.find((l) => l.urls !== undefined)!;
    const base = urls!.listening!;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(urls).toEqual({
      listening: base,
      liveChart: `${base}/`,
      embed: `${base}/embed/chart?symbol=${newest}&resolution=15`,
      dashboard: `${base}/dashboard`,
      docs: `${base}/docs`,
      sdk: `${base}/sdk/datafeed.js`,
    });
    expect(lines.find((l) => l.urls !== undefined)!.msg).toBe(`ready: open ${base}/`);
    expect((await fetch(urls!.embed!)).status).toBe(200);
    expect((await fetch(urls!.sdk!)).status).toBe(200);
  }, 60_000);

  it('logs when the demo feed stops because real data arrived', async () => {
    const path = join(dir, 'f.db');
    await demoStore(path);
    const server = run({ DATABASE_PATH: path, DEMO_FEED: 'on' });
    await server.until((o) => o.stderr.includes('"urls"'));
    // Real data from another process (as the CLI would write it).
    const store = openStore(path);
    createServices({ store, clock: { now: () => Date.now() } }).ingest.ingest([{ line: 1, value: aToken() }]);
    store.close();
    const { stderr } = await server.until((o) => o.stderr.includes('demo feed stopped'));
    const line = JSON.parse(stderr.split('\n').find((l) => l.includes('demo feed stopped'))!);
    expect(line).toMatchObject({ level: 30, msg: 'demo feed stopped: real data arrived', reason: 'real data arrived' });
  }, 60_000);
});
