/**
 * What the hostile pass reads of the bench server around each phase (docs/operations.md,
 * Benchmark, hostile pass): its largest event-loop delay (prom-client's
 * nodejs_eventloop_lag_max_seconds in /metrics, reset by each scrape), its main thread's time on
 * a core and waiting for one (Linux's /proc/<pid>/schedstat), and, when the server reports them
 * (bench/turn-monitor.ts), its longest turn with that turn's CPU and the most CPU of any turn.
 * The last two separate the server's own stalls from the machine's load.
 */
import { readFileSync } from 'node:fs';
import type { TurnStats } from './turn-monitor.js';

/** The server's figures over one phase; null where they could not be read. */
export type PhaseGauges = { loop: number | null; sched: { ran: number; waited: number } | null; turns: TurnStats | null };

/** The server's largest event-loop delay since the previous scrape, in ms (null when unreadable). */
async function loopLagMaxMs(base: string): Promise<number | null> {
  try {
    const text = await (await fetch(`${base}/metrics`)).text();
    const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text);
    return m === null ? null : Number(m[1]) * 1000;
  } catch {
    return null;
  }
}

/** The main thread's time on a core and waiting for one so far, in ms (null off Linux). */
function schedstat(pid: number): { ran: number; waited: number } | null {
  try {
    const [ran, waited] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return ran === undefined || waited === undefined ? null : { ran: ran / 1e6, waited: waited / 1e6 };
  } catch {
    return null;
  }
}

/** The resident set of process `pid` in MB (0 when unreadable). */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]) / 1024;
  } catch {
    return 0;
  }
}

/** begin() starts a phase (resetting what resets on read), end() gives its figures. */
export function serverGauges(opts: { base: string; pid: number; readTurns?: () => Promise<TurnStats> }) {
  let sched0 = schedstat(opts.pid);
  return {
    async begin(): Promise<void> {
      await loopLagMaxMs(opts.base);
      await opts.readTurns?.();
      sched0 = schedstat(opts.pid);
    },
    async end(): Promise<PhaseGauges> {
      const now = schedstat(opts.pid);
      const loop = await loopLagMaxMs(opts.base);
      const turns = opts.readTurns === undefined ? null : await opts.readTurns();
      const sched = sched0 === null || now === null ? null : { ran: now.ran - sched0.ran, waited: now.waited - sched0.waited };
      return { loop, sched, turns };
    },
  };
}
