/**
 * One load run with autocannon's programmatic API: a warm-up whose numbers are thrown away, then
 * the measured run. Non-2xx answers and connection errors are counted per status, so a broken
 * route shows as broken instead of as fast.
 */
import autocannon from 'autocannon';

export type LoadOptions = { connections: number; duration: number; warmup: number; headers: Record<string, string> };

export type LoadResult = {
  /** Mean requests per second (all answers). */
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Mean bytes per answer, as sent (after compression). */
  bytesPerAnswer: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
};

export async function drive(url: string, opts: LoadOptions): Promise<LoadResult> {
  const common = { url, connections: opts.connections, headers: opts.headers, timeout: 10 };
  if (opts.warmup > 0) await autocannon({ ...common, duration: opts.warmup });
  const r = await autocannon({ ...common, duration: opts.duration });
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = Number(stat.count);
  const requests = r.requests.total;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests,
    bytesPerAnswer: requests > 0 ? r.throughput.total / requests : 0,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
  };
}
