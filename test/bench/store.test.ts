/**
 * `npm run bench -- --store sqlite|postgres|both`: the flags, the data set's database name, the
 * report's store column and database CPU row, and the side-by-side table of the two stores. The
 * PostgreSQL copy itself is tested against a real server in test/engines/bench-pg-data.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/args.js';
import { dataDatabaseName } from '../../bench/pg-data.js';
import { formatTable, judgeRoute, reportRows, type PassResult } from '../../bench/report.js';
import { formatStoreComparison, storeComparison } from '../../bench/store-compare.js';
import type { LoadResult } from '../../bench/load.js';

const load = (rps: number, p50 = 5, p99 = 20, non2xx = 0): LoadResult => ({
  requests: rps * 10,
  rps,
  p50,
  p99,
  non2xx,
  errors: 0,
  timeouts: 0,
  statusCodes: non2xx > 0 ? { '200': rps * 10 - non2xx, '503': non2xx } : { '200': rps * 10 },
  bytesPerAnswer: 100,
});

const pass = (name: 'cached' | 'uncached', store: 'sqlite' | 'postgres', routes: [string, LoadResult][], databaseCores: number | null = null): PassResult => ({
  name,
  store,
  routes: routes.map(([id, r]) => judgeRoute(id, `/${id}`, r, load(1000), 0.5)),
  stream: null,
  deepCursor: { depth: 0, pages: 0, error: 'not walked' },
  otherCores: 0.1,
  databaseCores,
});

describe('--store', () => {
  it('defaults to SQLite alone, takes postgres, and both as SQLite then PostgreSQL', () => {
    expect(parseBenchArgs([]).stores).toEqual(['sqlite']);
    expect(parseBenchArgs(['--store', 'sqlite']).stores).toEqual(['sqlite']);
    expect(parseBenchArgs(['--store', 'postgres']).stores).toEqual(['postgres']);
    expect(parseBenchArgs(['--store', 'both']).stores).toEqual(['sqlite', 'postgres']);
    expect(() => parseBenchArgs(['--store', 'mysql'])).toThrow('--store must be sqlite, postgres or both');
    expect(() => parseBenchArgs(['--store'])).toThrow();
  });

  it('takes the server from --database-url, else BENCH_DATABASE_URL, else none (a throwaway one)', () => {
    const env = { BENCH_DATABASE_URL: 'postgres://postgres@127.0.0.1:54329/postgres' };
    expect(parseBenchArgs(['--store', 'postgres']).databaseUrl).toBeNull();
    expect(parseBenchArgs(['--store', 'postgres'], { BENCH_DATABASE_URL: '' }).databaseUrl).toBeNull();
    expect(parseBenchArgs(['--store', 'postgres'], env).databaseUrl).toBe('postgres://postgres@127.0.0.1:54329/postgres');
    expect(parseBenchArgs(['--database-url', 'postgresql://u:p@db:5432/x'], env).databaseUrl).toBe('postgresql://u:p@db:5432/x');
    expect(() => parseBenchArgs(['--database-url', 'mysql://db/x'])).toThrow('--database-url must be a postgres:// URL with a host');
    expect(() => parseBenchArgs([], { BENCH_DATABASE_URL: 'postgres:///x' })).toThrow('BENCH_DATABASE_URL must be a postgres:// URL with a host');
  });

  it("names the cached PostgreSQL data set after the SQLite set's file, fingerprint included", () => {
    expect(dataDatabaseName('/x/bench/.data/store-t100000-k50-d30-s1-a1750000000-0123456789ab.db')).toBe('bench_t100000_k50_d30_s1_a1750000000_0123456789ab');
    const long = dataDatabaseName('store-t50000000-k10000-d3650-s2147483648-a4000000000-0123456789ab.db');
    expect(long).toMatch(/^bench_[0-9a-f]{16}_0123456789ab$/);
    expect(dataDatabaseName('store-t50000000-k10000-d3650-s2147483647-a4000000000-0123456789ab.db')).not.toBe(long);
  });
});

describe('the report on two stores', () => {
  it('has a store column on every pass row and a database CPU row for a PostgreSQL pass', () => {
    const rows = reportRows({
      passes: [pass('cached', 'sqlite', [['overview', load(900)]]), pass('cached', 'postgres', [['overview', load(450)]], 0.62)],
      ingest: null,
      startup: { runs: [400], medianMs: 400, maxMs: 400, error: null },
      postgresStartup: { runs: [700], medianMs: 700, maxMs: 700, error: null },
      limiter: null,
      errors: {},
    });
    expect(rows.map((r) => `${r.store} | ${r.figure} | ${r.value}`)).toEqual([
      'sqlite | cached: overview | 900 req/s',
      'sqlite | cached: deep vs first trades page | -',
      'sqlite | cached: live ingest stream | -',
      'sqlite | cached: CPU of other processes | 0.10 cores',
      'postgres | cached: overview | 450 req/s',
      'postgres | cached: deep vs first trades page | -',
      'postgres | cached: live ingest stream | -',
      'postgres | cached: CPU of other processes | 0.10 cores',
      'postgres | cached: CPU of the database | 0.62 cores',
      'sqlite | ingest, real path vs bare inserts | -',
      'sqlite | start-up to first /healthz 200 | 400 ms',
      'postgres | start-up to first /healthz 200 | 700 ms',
      ' | limiter bytes per bucket | -',
    ]);
    const lines = formatTable(rows).split('\n');
    expect(lines[0]).toMatch(/^figure\s+store\s+value\s+p50 ms/);
    expect(lines.find((l) => l.includes('CPU of the database'))).toMatch(/^cached: CPU of the database\s+postgres\s+0\.62 cores/);
  });

  it('puts each route of a pass run on both stores side by side, with PostgreSQL over SQLite', () => {
    const passes = [
      pass('cached', 'sqlite', [
        ['history 1', load(800, 6, 30)],
        ['overview', load(1000, 4, 12)],
      ]),
      pass('cached', 'postgres', [
        ['history 1', load(400, 12, 60)],
        ['overview', load(1250, 3, 10, 2)],
      ]),
      pass('uncached', 'sqlite', [['history 1', load(300)]]),
    ];
    const rows = storeComparison(passes);
    expect(rows.map((r) => [r.figure, r.sqlite.rps, r.postgres.rps, r.ratio, r.problem])).toEqual([
      ['cached: history 1', 800, 400, 0.5, null],
      ['cached: overview', 1000, 1250, 1.25, 'postgres: 2 non-2xx (503: 2)'],
    ]);
    const lines = formatStoreComparison(rows).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^figure\s+sqlite req\/s\s+p50 ms\s+p99 ms\s+postgres req\/s\s+p50 ms\s+p99 ms\s+postgres \/ sqlite\s+note$/);
    expect(lines[2]).toMatch(/^cached: history 1\s+800\s+6\.0\s+30\.0\s+400\s+12\.0\s+60\.0\s+0\.50$/);
    expect(formatStoreComparison(storeComparison([passes[0]!, passes[2]!]))).toBe('');
  });
});
