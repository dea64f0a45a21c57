/**
 * The viewers pass's ceiling (docs/operations.md, Benchmark): the bare Koa app of bench/baseline.ts
 * in a process of its own, answering the viewers' three requests (`/symbols`, `/open`, `/poll`)
 * with the real server's answers as precompressed bytes. The same viewers are driven against it
 * with no ingest, so its CPU per viewer-second is what the framework and the sockets cost for
 * that request pattern on this machine, the floor under ours. Run as a child: `fork()` this file;
 * the parent sends the bodies, then reads the port.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { baselineBody, listenBaseline, type BaselineBody } from './baseline.js';

/** One answer of the real server: its identity JSON and its header length. */
export type CeilingAnswer = { json: string; headerBytes: number };
export type CeilingBodies = { symbols: CeilingAnswer; open: CeilingAnswer; poll: CeilingAnswer };

export type ViewersCeiling = { base: string; pid: number; stop(): Promise<void> };

/** Starts the ceiling process with `bodies`. */
export async function startViewersCeiling(bodies: CeilingBodies): Promise<ViewersCeiling> {
  const file = fileURLToPath(import.meta.url);
  // From the sources (the tests), the child needs tsx to load this file.
  const child = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: file.endsWith('.ts') ? ['--import', 'tsx'] : [] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    void exited.then(() => reject(new Error('the viewers ceiling exited before it listened')));
    child.send(bodies);
  });
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      child.kill();
      await exited;
    },
  };
}

async function main(): Promise<void> {
  const bodies = await new Promise<CeilingBodies>((resolve) => process.once('message', (m: CeilingBodies) => resolve(m)));
  const map = new Map<string, BaselineBody>(Object.entries(bodies).map(([name, a]) => [name, baselineBody(a.json, a.headerBytes)]));
  const server = await listenBaseline(map);
  // As the service: keep-alive past the adapter's 10-s poll (docs/operations.md, Timeouts).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  process.send?.({ port: (server.address() as { port: number }).port });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) void main();
