/**
 * The benchmark's server process (forked by bench/run.ts with an IPC channel): the real service,
 * started through `start()` on a clock that begins at the data set's anchor and advances in real
 * time, and the baseline (bench/baseline.ts): a bare Koa app on a port of its own, whose fixed
 * bodies the parent sends over IPC.
 */
import { start } from '../src/server.js';
import type { Clock } from '../src/domain/clock.js';
import { baselineBody, listenBaseline, type BaselineBody } from './baseline.js';
import { startTurnMonitor, type TurnStats } from './turn-monitor.js';

/** Messages the parent sends. */
export type ToServer = { type: 'baseline'; name: string; json: string; headerBytes: number } | { type: 'turns' } | { type: 'stop' };
/** Messages this process sends. */
export type FromServer =
  | { type: 'ready'; port: number; baselinePort: number; clockStartMs: number; anchorMs: number }
  | { type: 'baseline-set'; name: string }
  | { type: 'turns'; stats: TurnStats }
  | { type: 'failed'; message: string };

function send(message: FromServer): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const anchorMs = Number(process.env.BENCH_ANCHOR_MS);
  if (!Number.isSafeInteger(anchorMs) || anchorMs <= 0) throw new Error('BENCH_ANCHOR_MS must be set');
  const clockStartMs = Date.now();
  // The bench clock: at the anchor when the process starts, then real time.
  const clock: Clock = { now: () => anchorMs + (Date.now() - clockStartMs) };

  const bodies = new Map<string, BaselineBody>();
  const running = await start(process.env, clock);
  const baseline = await listenBaseline(bodies);
  // The event loop's longest turns and their CPU, read by the hostile pass per phase; started by
  // the first read, so the passes that never read it do not pay for its timer.
  let turns: ReturnType<typeof startTurnMonitor> | null = null;

  process.on('message', (message: ToServer) => {
    if (message.type === 'baseline') {
      bodies.set(message.name, baselineBody(message.json, message.headerBytes));
      send({ type: 'baseline-set', name: message.name });
    } else if (message.type === 'turns') {
      turns ??= startTurnMonitor();
      send({ type: 'turns', stats: turns.read() });
    } else if (message.type === 'stop') {
      baseline.close();
      void running.stop().then(() => process.exit(0));
    }
  });
  // The parent going away must not leave a server behind.
  process.on('disconnect', () => {
    baseline.close();
    void running.stop().then(() => process.exit(0));
  });

  const address = running.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const baselinePort = (baseline.address() as { port: number }).port;
  send({ type: 'ready', port, baselinePort, clockStartMs, anchorMs });
}

main().catch((err: unknown) => {
  send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
