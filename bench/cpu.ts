/**
 * How busy the machine was with other work while the benchmark ran: the CPU time of the whole
 * machine (/proc/stat) minus that of the benchmark's own processes, in cores. On a shared
 * two-core machine this says how pessimistic the figures are. Linux only; null elsewhere.
 */
import { readFileSync } from 'node:fs';

const TICK_SECONDS = 0.01; // USER_HZ is 100 on Linux

/** Busy CPU seconds of the machine since boot, or null without /proc. */
export function machineBusySeconds(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return (total - idle) * TICK_SECONDS;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used, or null. */
export function processSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_SECONDS;
  } catch {
    return null;
  }
}

/**
 * User-mode CPU seconds of a process, or null: the part of its CPU that is its own code. System
 * time (the socket writes, the wake-ups) grows with the machine's load, so on a shared machine
 * this is the steadier figure to compare two builds by.
 */
export function processUserSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) * TICK_SECONDS;
  } catch {
    return null;
  }
}

export type CpuShare = { seconds: number; otherCores: number | null; ownCores: number };
export type CpuWindow = { stop(children: readonly number[]): CpuShare };

/**
 * Starts watching. stop(children) gives the cores used by this process plus `children` (which
 * must have started after the watch began and still be running), and by everything else.
 */
export function watchCpu(): CpuWindow {
  const t0 = Date.now();
  const busy0 = machineBusySeconds();
  const self0 = process.cpuUsage();
  return {
    stop(children) {
      const seconds = (Date.now() - t0) / 1000;
      const busy1 = machineBusySeconds();
      const self = process.cpuUsage(self0);
      let own = (self.user + self.system) / 1e6;
      for (const pid of children) own += processSeconds(pid) ?? 0;
      if (busy0 === null || busy1 === null || seconds <= 0) return { seconds, otherCores: null, ownCores: own / seconds };
      return { seconds, otherCores: Math.max(0, (busy1 - busy0 - own) / seconds), ownCores: own / seconds };
    },
  };
}
