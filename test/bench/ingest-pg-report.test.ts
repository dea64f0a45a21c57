/**
 * The report's ingest figures of issue 33 (bench/report.ts): the PostgreSQL row (real path
 * against a bare multi-row insert, target 0.5, the batches' p50 / p99) when PostgreSQL ran, and an
 * ingest stream's posts as p50 / p99 against the 50 ms target when the stream measured them.
 */
import { describe, expect, it } from 'vitest';
import { reportRows, type PassResult, type Report } from '../../bench/report.js';
import type { PgIngestRate } from '../../bench/ingest-pg.js';
import type { StreamStats } from '../../bench/ingest-stream.js';

const base: Report = { passes: [], ingest: null, startup: null, postgresStartup: null, limiter: null, errors: {} };

const rate = (ratio: number): PgIngestRate => ({
  trades: 300_000,
  batch: 1000,
  realMs: 30_000 / ratio / 10,
  bareMs: 3000,
  realPerSecond: 100_000 * ratio,
  barePerSecond: 100_000,
  ratio,
  batchP50Ms: 12.34,
  batchP99Ms: 45.67,
  events: 300,
  registered: true,
  bare: 'multi-row insert',
});

const stream = (p50Ms: number | undefined, p99Ms: number | undefined): StreamStats => ({
  posts: 40,
  accepted: 200,
  duplicates: 0,
  failed: 0,
  statusCodes: { '200': 40 },
  meanMs: 20,
  maxMs: 80,
  ...(p50Ms === undefined ? {} : { p50Ms }),
  ...(p99Ms === undefined ? {} : { p99Ms }),
  seconds: 4,
  rate: 50,
  tokensPerPost: 1,
  firstError: null,
});

const pass = (s: StreamStats): PassResult => ({
  name: 'cached',
  store: 'postgres',
  routes: [],
  stream: s,
  deepCursor: { depth: 0, pages: 0, error: 'not walked' },
  otherCores: 0.1,
  databaseCores: null,
});

const line = (r: ReturnType<typeof reportRows>[number]) =>
  [r.figure, r.store, r.value, r.p50, r.p99, r.baseline, r.ratio, r.target, r.meets, r.note].join(' | ');

describe("the report's PostgreSQL ingest row", () => {
  it('shows both rates, the ratio against 0.5 and the batches p50 / p99', () => {
    const rows = reportRows({ ...base, pgIngest: rate(0.55) }).filter((r) => r.store === 'postgres');
    expect(rows.map(line)).toEqual([
      'ingest, real path vs bare multi-row insert | postgres | 55,000 trades/s | 12.3 | 45.7 | 100,000 trades/s | 0.55 | >= 0.50 | yes | 300,000 trades, 1000 a batch (p50 / p99 ms a batch), 300 events',
    ]);
    expect(reportRows({ ...base, pgIngest: rate(0.12) }).find((r) => r.store === 'postgres')!.meets).toBe('NO');
  });

  it('says why when the measurement failed, and has no row when PostgreSQL did not run', () => {
    const failed = reportRows({ ...base, pgIngest: null, errors: { pgIngest: 'connection refused' } }).filter((r) => r.store === 'postgres');
    expect(failed.map(line)).toEqual(['ingest, real path vs bare multi-row insert | postgres | - |  |  | - | - | >= 0.50 | - | connection refused']);
    expect(reportRows(base).filter((r) => r.figure.startsWith('ingest, real path vs bare multi-row'))).toEqual([]);
  });
});

describe("an ingest stream's posts", () => {
  it('are p50 / p99 against the 50 ms target when measured', () => {
    const [fast] = reportRows({ ...base, passes: [pass(stream(8, 49.9))] }).filter((r) => r.figure === 'cached: live ingest stream');
    expect(line(fast!)).toBe(
      'cached: live ingest stream | postgres | 50.0 trades/s | 8.0 | 49.9 |  |  | p99 < 50 ms | yes | 40 posts, p50 / p99 ms (mean 20.0, max 80.0)',
    );
    const [slow] = reportRows({ ...base, passes: [pass(stream(8, 50))] }).filter((r) => r.figure === 'cached: live ingest stream');
    expect(slow!.meets).toBe('NO');
  });

  it('stay mean / max without a target in results from before the quantiles', () => {
    const [old] = reportRows({ ...base, passes: [pass(stream(undefined, undefined))] }).filter((r) => r.figure === 'cached: live ingest stream');
    expect(line(old!)).toBe('cached: live ingest stream | postgres | 50.0 trades/s | 20.0 | 80.0 |  |  |  | yes | 40 posts, mean / max ms');
  });
});
