/**
 * Helpers for the operations tests that run the real server or CLI as a child process: spawn
 * `node --import tsx src/server.ts` and wait for its "listening" log line, raw HTTP requests on
 * fresh connections, and a checksum of every table of a store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { TestApp } from '../helpers/make-test-app.js';

export type Child = { child: ChildProcess; port: number; stderr: () => string; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> };

/** Starts the server on a free port; resolves once it logs that it listens. */
export async function spawnServer(env: Record<string, string>, timeoutMs = 60_000): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DEMO_FEED: 'off', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), timeoutMs);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = err.match(/"port":(\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    void exit.then(({ code }) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
  return { child, port, stderr: () => err, exit };
}

export type RawAnswer = { status: number; body: string; headers: http.IncomingHttpHeaders } | { error: string };

/** One GET on its own connection (no keep-alive agent), never rejecting. */
export function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    });
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
  });
}

/** A SHA-256 over every row of every table (and the schema), in a stable order, on either engine. */
export async function storeChecksum(app: Pick<TestApp, 'store' | 'sql'>): Promise<string> {
  const hash = createHash('sha256');
  const kind: string = app.store.kind;
  const tables = await app.sql<{ name: string; sql: string }>(
    kind === 'postgres'
      ? `SELECT table_name AS name, string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) AS sql
         FROM information_schema.columns WHERE table_schema = 'public' GROUP BY table_name ORDER BY table_name`
      : "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name",
  );
  for (const t of tables) {
    hash.update(`${t.name}\n${t.sql}\n`);
    const rows = (await app.sql(`SELECT * FROM "${t.name.replace(/"/g, '""')}"`)).map((r) => Object.values(r));
    const lines = rows
      .map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) ? v.toString('base64') : v)))
      .sort();
    for (const line of lines) hash.update(line + '\n');
  }
  return hash.digest('hex');
}
