/**
 * Two-instance harness: real server child processes (`node --import tsx src/server.ts`, as the
 * operations tests spawn them) on one store, and a Redis of the test's own (a redis-server
 * child on a spare port), which the test may stop (`redis-cli shutdown nosave`) and start again
 * on the same port.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { spawnServer, type Child } from '../ops/support.js';

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, tries = 400): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < tries; i++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting until ${what}; last: ${JSON.stringify(last)}`);
}

export type OwnRedis = { url: string; port: number; start(): Promise<void>; stop(): void; kill(): void };

/** A throwaway Redis (no persistence) on a spare loopback port; `start()` runs it (again). */
export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const ping = () => {
    try {
      return (
        execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === 'PONG'
      );
    } catch {
      return false;
    }
  };
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      await until(
        async () => ping(),
        (ok) => ok,
        `redis answers on ${port}`,
      );
    },
    /** As an operator stops it: the server exits at once, without saving. */
    stop() {
      execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' });
    },
    kill() {
      child?.kill('SIGKILL');
    },
  };
}

export type Instance = Child & { id: string; base: string; stop(): Promise<void> };

/** One instance of the service with `env` (on top of the test defaults: port 0, no demo feed, info logs). */
export async function startServer(id: string, env: Record<string, string>, timeoutMs?: number): Promise<Instance> {
  const c = await spawnServer({ INSTANCE_ID: id, LOG_LEVEL: 'info', ...env }, timeoutMs);
  return {
    ...c,
    id,
    base: `http://127.0.0.1:${c.port}`,
    async stop() {
      if (c.child.exitCode !== null || c.child.signalCode !== null) return;
      c.child.kill('SIGTERM');
      const timer = setTimeout(() => c.child.kill('SIGKILL'), 10_000);
      await c.exit;
      clearTimeout(timer);
    },
  };
}

/** One instance of the service on `dbPath` and `redisUrl`, no demo data or feed; `env` adds to its environment. */
export function startInstance(id: string, dbPath: string, redisUrl: string, env: Record<string, string> = {}): Promise<Instance> {
  return startServer(id, { DATABASE_PATH: dbPath, REDIS_URL: redisUrl, DEMO_DATA: 'off', DEMO_FEED: 'off', ...env });
}

export type Health = { status: string; instance: string; store: { kind: string; state: string }; redis: string };

export async function health(i: Instance): Promise<{ code: number; body: Health }> {
  const res = await fetch(`${i.base}/healthz`);
  return { code: res.status, body: (await res.json()) as Health };
}
