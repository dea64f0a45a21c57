/**
 * Load runs with autocannon's programmatic API. A route and its baseline are measured as a pair,
 * interleaved in rounds (route, baseline, route, baseline, ...) after a warm-up of each, so that
 * other work on a shared machine weighs on both alike. Latencies of every answer are collected
 * from autocannon's response events, so the percentiles of several rounds are exact. Non-2xx
 * answers and connection errors are counted per status, so a broken route shows as broken
 * instead of as fast.
 */
import autocannon from 'autocannon';

export type LoadOptions = {
  connections: number;
  /** Measured seconds per side, split over the rounds. */
  duration: number;
  /** Seconds of warm-up per side before the first round. */
  warmup: number;
  rounds: number;
  headers: Record<string, string>;
};

export type LoadResult = {
  /** Answers per second (all statuses). */
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Mean bytes per 2xx answer, as sent (after compression). */
  bytesPerAnswer: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
};

/** The raw outcome of one autocannon run. */
export type Sample = {
  seconds: number;
  latencies: number[];
  bytes: number;
  ok: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
};

async function runOnce(url: string, opts: LoadOptions, seconds: number): Promise<Sample> {
  const latencies: number[] = [];
  const instance = autocannon({ url, connections: opts.connections, headers: opts.headers, timeout: 10, duration: seconds });
  instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  const r = await instance;
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = Number(stat.count);
  return { seconds: r.duration, latencies, bytes: r.throughput.total, ok: r['2xx'], statusCodes, errors: r.errors, timeouts: r.timeouts };
}

/** The q-quantile (0..1) of sorted values; NaN when there are none. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** One result from the samples of several rounds. */
export function summarize(samples: readonly Sample[]): LoadResult {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const seconds = samples.reduce((a, s) => a + s.seconds, 0);
  const statusCodes: Record<string, number> = {};
  for (const s of samples) for (const [code, n] of Object.entries(s.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const requests = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const ok = samples.reduce((a, s) => a + s.ok, 0);
  return {
    rps: seconds > 0 ? requests / seconds : 0,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    requests,
    bytesPerAnswer: ok > 0 ? samples.reduce((a, s) => a + s.bytes, 0) / ok : 0,
    non2xx: requests - ok,
    errors: samples.reduce((a, s) => a + s.errors, 0),
    timeouts: samples.reduce((a, s) => a + s.timeouts, 0),
    statusCodes,
  };
}

/**
 * Several URLs (routes and their baselines), each warmed up, then measured in interleaved rounds
 * (a, b, c, a, b, c, ...), so that they share the same conditions. Results in the order given.
 */
export async function driveGroup(urls: readonly string[], opts: LoadOptions): Promise<LoadResult[]> {
  if (opts.warmup > 0) for (const url of urls) await runOnce(url, opts, opts.warmup);
  const rounds = Math.max(1, opts.rounds);
  const seconds = Math.max(1, Math.round(opts.duration / rounds));
  const samples: Sample[][] = urls.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [k, url] of urls.entries()) samples[k]!.push(await runOnce(url, opts, seconds));
  }
  return samples.map(summarize);
}
