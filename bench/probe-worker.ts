/**
 * The hostile pass's probe (docs/operations.md, Benchmark): a worker thread with its own event loop that asks
 * `/healthz` every 20 ms over its own keep-alive connection and records how long each answer
 * took, so the driver's work never delays a probe. Probes overlap when one is slow: a blocked
 * server shows as one long probe, not as missing ones.
 */
import { request, Agent } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

export type ProbeSample = { at: number; ms: number; status: number };

const { base, intervalMs } = workerData as { base: string; intervalMs: number };
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
const samples: ProbeSample[] = [];

function probe(): void {
  const at = Date.now();
  const t0 = performance.now();
  const req = request(`${base}/healthz`, { agent }, (res) => {
    res.resume();
    res.on('end', () => samples.push({ at, ms: performance.now() - t0, status: res.statusCode ?? 0 }));
  });
  req.on('error', () => samples.push({ at, ms: performance.now() - t0, status: 0 }));
  req.end();
}

const timer = setInterval(probe, intervalMs);
parentPort?.on('message', (m: string) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  // The probes still out get a moment to come back.
  setTimeout(() => {
    agent.destroy();
    parentPort?.postMessage(samples);
  }, 500);
});
