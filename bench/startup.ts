/**
 * Start-up time of the built server on the full store: from spawning `node dist/src/server.js`
 * (DATABASE_PATH at the bench store, DEMO_DATA=off) to the first `GET /healthz` that answers 200.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { projectRoot } from '../src/paths.js';

export type Startup = { runs: number[]; medianMs: number; maxMs: number; error: string | null };

/** A port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One start: milliseconds from spawn to the first healthy answer (the child is stopped again). */
export async function startOnce(storePath: string, timeoutMs = 30_000, databaseUrl?: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(projectRoot, 'dist', 'src', 'server.js')], {
    env: {
      ...process.env,
      DATABASE_PATH: storePath,
      // The PostgreSQL store when given; never one inherited from the caller's shell.
      DATABASE_URL: databaseUrl,
      DEMO_DATA: 'off',
      DEMO_FEED: 'off',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited: number | null = null;
  const done = new Promise<void>((resolve) => child.once('exit', (code) => ((exited = code ?? -1), resolve())));
  try {
    for (;;) {
      if (exited !== null) throw new Error(`the server exited with ${exited}: ${stderr.trim().split('\n')[0] ?? ''}`);
      if (performance.now() - t0 > timeoutMs) throw new Error(`no healthy answer within ${timeoutMs} ms`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        await res.arrayBuffer();
        if (res.status === 200) return performance.now() - t0;
      } catch {
        // not listening yet
      }
      await sleep(2);
    }
  } finally {
    if (exited === null) child.kill('SIGTERM');
    await done;
  }
}

/** Start-ups on the SQLite file, or on the PostgreSQL database `databaseUrl` names. */
export async function measureStartup(storePath: string, runs = 3, databaseUrl?: string): Promise<Startup> {
  const times: number[] = [];
  try {
    for (let i = 0; i < runs; i++) times.push(await startOnce(storePath, 30_000, databaseUrl));
  } catch (err) {
    return { runs: times, medianMs: NaN, maxMs: NaN, error: err instanceof Error ? err.message : String(err) };
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { runs: times, medianMs: sorted[Math.floor(sorted.length / 2)]!, maxMs: sorted.at(-1)!, error: null };
}
