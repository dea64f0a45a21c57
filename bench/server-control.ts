/**
 * The parent's side of bench/server.ts: forks the server process on a store, waits until it
 * listens, hands it baseline bodies over IPC, and stops it. The server's log goes to a file. The
 * store is a SQLite file, or a PostgreSQL database when `databaseUrl` is given (DATABASE_URL).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/paths.js';
import type { FromServer, ToServer } from './server.js';
import type { TurnStats } from './turn-monitor.js';

export type BenchServer = {
  base: string;
  /** The bare Koa ceiling (bench/baseline.ts): `${baselineBase}/<name>`. */
  baselineBase: string;
  pid: number;
  anchorMs: number;
  clockStartMs: number;
  /** Unix seconds on the server's clock. */
  serverNow(): number;
  /** Gives the baseline `json` as `name`, with headers padded to `headerBytes`. */
  setBaseline(name: string, json: string, headerBytes: number): Promise<void>;
  /** The server's longest event-loop turns since the previous call (bench/turn-monitor.ts). */
  readTurns(): Promise<TurnStats>;
  stop(): Promise<void>;
};

export async function startBenchServer(opts: {
  storePath: string;
  /** A PostgreSQL database to serve instead of the file (DATABASE_URL wins over DATABASE_PATH). */
  databaseUrl?: string;
  anchorMs: number;
  env: Record<string, string>;
  logFile: string;
  /** A folder for a CPU profile of the server (written when it stops), or none. */
  profileDir?: string;
}): Promise<BenchServer> {
  const log = openSync(opts.logFile, 'w');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...opts.env,
    DATABASE_PATH: opts.storePath,
    PORT: '0',
    HOST: '127.0.0.1',
    DEMO_DATA: 'off',
    DEMO_FEED: 'off',
    BENCH_ANCHOR_MS: String(opts.anchorMs),
  };
  // A DATABASE_URL of the caller's shell must not turn a SQLite pass into a PostgreSQL one.
  if (opts.databaseUrl === undefined) delete env.DATABASE_URL;
  else env.DATABASE_URL = opts.databaseUrl;
  const child: ChildProcess = fork(join(projectRoot, 'dist', 'bench', 'server.js'), [], {
    env,
    stdio: ['ignore', log, log, 'ipc'],
    execArgv: opts.profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', opts.profileDir],
  });
  closeSync(log);
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));

  const ready = await new Promise<Extract<FromServer, { type: 'ready' }>>((resolve, reject) => {
    child.on('message', (m: FromServer) => {
      if (m.type === 'ready') resolve(m);
      else if (m.type === 'failed') reject(new Error(`the bench server failed to start: ${m.message}`));
    });
    void exited.then((code) => reject(new Error(`the bench server exited with ${code} (see ${opts.logFile})`)));
  });

  const waiting = new Map<string, () => void>();
  const turnReads: ((s: TurnStats) => void)[] = [];
  child.on('message', (m: FromServer) => {
    if (m.type === 'baseline-set') {
      waiting.get(m.name)?.();
      waiting.delete(m.name);
    } else if (m.type === 'turns') turnReads.shift()?.(m.stats);
  });
  const send = (m: ToServer) => child.send(m);

  return {
    base: `http://127.0.0.1:${ready.port}`,
    baselineBase: `http://127.0.0.1:${ready.baselinePort}`,
    pid: child.pid ?? 0,
    anchorMs: ready.anchorMs,
    clockStartMs: ready.clockStartMs,
    serverNow: () => Math.floor((ready.anchorMs + Date.now() - ready.clockStartMs) / 1000),
    setBaseline(name, json, headerBytes) {
      return new Promise<void>((resolve) => {
        waiting.set(name, resolve);
        send({ type: 'baseline', name, json, headerBytes });
      });
    },
    readTurns() {
      return new Promise<TurnStats>((resolve) => {
        turnReads.push(resolve);
        send({ type: 'turns' });
      });
    },
    async stop() {
      if (child.exitCode === null) send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
