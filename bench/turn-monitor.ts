/**
 * The bench server's own view of its event loop (docs/operations.md, Benchmark, hostile pass): a
 * 2 ms timer measures each gap between two of its ticks (a stretch in which the loop could not
 * run it) and the main thread's CPU time in that gap, from Linux's /proc/self/schedstat (the
 * main thread's time on a core). A long gap with little CPU in it is the machine's load (the
 * thread waited for a core); a gap with as much CPU as wall time is the server's own work.
 */
import { readFileSync } from 'node:fs';

/** Since the last read: the longest gap (beyond the timer's interval), its CPU, and the most CPU any gap held. */
export type TurnStats = { longestMs: number; longestCpuMs: number; mostCpuMs: number };

const INTERVAL_MS = 2;

/** The main thread's time on a core so far, in ms (null off Linux). */
export function mainThreadCpuMs(): number | null {
  try {
    const ns = Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

export function startTurnMonitor(): { read(): TurnStats; stop(): void } {
  const empty = (): TurnStats => ({ longestMs: 0, longestCpuMs: 0, mostCpuMs: 0 });
  let stats = empty();
  let last = performance.now();
  let lastCpu = mainThreadCpuMs();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = mainThreadCpuMs();
    const ms = Math.max(0, now - last - INTERVAL_MS);
    const cpuMs = cpu === null || lastCpu === null ? 0 : cpu - lastCpu;
    if (ms > stats.longestMs) stats = { ...stats, longestMs: ms, longestCpuMs: cpuMs };
    if (cpuMs > stats.mostCpuMs) stats.mostCpuMs = cpuMs;
    last = now;
    lastCpu = cpu;
  }, INTERVAL_MS);
  timer.unref();
  return {
    read() {
      const s = stats;
      stats = empty();
      return s;
    },
    stop: () => clearInterval(timer),
  };
}
