/**
 * The benchmark's results: their shape (also written to bench/results/latest.json), the target
 * checks of docs/operations.md, Benchmark and performanceand the one table printed at the end. Pure functions, so the
 * tests pin the checks and the layout.
 */
import type { LoadResult } from './load.js';
import type { StreamStats } from './ingest-stream.js';
import type { IngestRate } from './ingest-rate.js';
import type { PgIngestRate } from './ingest-pg.js';
import type { CliIngestRate } from './ingest-cli.js';
import type { Startup } from './startup.js';
import type { BenchStoreKind, IngestKind } from './args.js';

export type LimiterFigure = { buckets: number; bytesPerBucket: number; gc: boolean };

export type RouteRun = {
  id: string;
  path: string;
  route: LoadResult;
  baseline: LoadResult | null;
  /** route requests/s over baseline requests/s. */
  ratio: number | null;
  target: number | null;
  meets: boolean | null;
  /** Why the run is not valid (non-2xx answers, errors), or null. */
  problem: string | null;
};

export type PassResult = {
  name: 'cached' | 'uncached';
  /** The store the pass's server ran on (the same data set either way). */
  store: BenchStoreKind;
  /** The ingest beside the load (bench/args.ts, IngestKind); absent: live. */
  ingest?: IngestKind;
  routes: RouteRun[];
  stream: StreamStats | null;
  deepCursor: { depth: number; pages: number; error: string | null };
  /** Cores used by other work on the machine during the pass (null when unknown). */
  otherCores: number | null;
  /** Cores the database's own processes used (PostgreSQL on this machine; null otherwise). */
  databaseCores: number | null;
};

export type Targets = {
  deepVsFirst: number;
  ingestVsBare: number;
  /** Issue 33: the real path on PostgreSQL against a bare multi-row insert, and a live post's p99 (ms). */
  pgIngestVsBare: number;
  postP99Ms: number;
  startupMs: number;
  limiterBytes: number;
};

export const TARGETS: Targets = { deepVsFirst: 0.9, ingestVsBare: 0.5, pgIngestVsBare: 0.5, postP99Ms: 50, startupMs: 1000, limiterBytes: 150 };

/** A figure meets a "higher is better" target; null when either side is unknown. */
export function atLeast(value: number | null, target: number | null): boolean | null {
  if (value === null || target === null || !Number.isFinite(value)) return null;
  return value >= target;
}

/** A figure meets a "lower is better" target. */
export function atMost(value: number | null, target: number): boolean | null {
  if (value === null || !Number.isFinite(value)) return null;
  return value <= target;
}

/** What is wrong with a load run's answers, or null when every answer was a 2xx. */
export function loadProblem(r: LoadResult): string | null {
  const parts: string[] = [];
  if (r.requests === 0) parts.push('no answers');
  const bad = Object.entries(r.statusCodes).filter(([code]) => !code.startsWith('2'));
  if (r.non2xx > 0) parts.push(`${r.non2xx} non-2xx (${bad.map(([c, n]) => `${c}: ${n}`).join(', ')})`);
  if (r.errors > 0) parts.push(`${r.errors} errors`);
  if (r.timeouts > 0) parts.push(`${r.timeouts} timeouts`);
  return parts.length === 0 ? null : parts.join(', ');
}

/** A route's run against its baseline; a run with failed answers never meets its target. */
export function judgeRoute(id: string, path: string, route: LoadResult, baseline: LoadResult | null, target: number | null): RouteRun {
  const problem =
    [loadProblem(route), baseline && loadProblem(baseline) ? `baseline: ${loadProblem(baseline)}` : null].filter((p) => p !== null).join('; ') || null;
  const ratio = baseline !== null && baseline.rps > 0 ? route.rps / baseline.rps : null;
  const meets = problem !== null ? (target === null ? null : false) : atLeast(ratio, target);
  return { id, path, route, baseline, ratio, target, meets, problem };
}

/**
 * The deep trades page against the first page (requests/s). A pass that could not find the deep
 * cursor, or whose pages failed, misses the target; one that did not run the pages has no figure.
 */
export function deepVsFirst(pass: PassResult): { ratio: number | null; meets: boolean | null } {
  const first = pass.routes.find((r) => r.id === 'trades first page');
  const deep = pass.routes.find((r) => r.id === 'trades deep page');
  if (first && deep && !first.problem && !deep.problem && first.route.rps > 0) {
    const ratio = deep.route.rps / first.route.rps;
    return { ratio, meets: atLeast(ratio, TARGETS.deepVsFirst) };
  }
  const failed = pass.deepCursor.error !== null || Boolean(first?.problem) || Boolean(deep?.problem);
  return { ratio: null, meets: failed ? false : null };
}

export type Row = {
  figure: string;
  store: string;
  value: string;
  p50: string;
  p99: string;
  baseline: string;
  ratio: string;
  target: string;
  meets: string;
  note: string;
};

const COLUMNS: [keyof Row, string][] = [
  ['figure', 'figure'],
  ['store', 'store'],
  ['value', 'value'],
  ['p50', 'p50 ms'],
  ['p99', 'p99 ms'],
  ['baseline', 'baseline'],
  ['ratio', 'ratio'],
  ['target', 'target'],
  ['meets', 'meets'],
  ['note', 'note'],
];

const num = (n: number | null | undefined, digits = 0): string =>
  n === null || n === undefined || !Number.isFinite(n) ? '-' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export const meetsText = (m: boolean | null): string => (m === null ? '-' : m ? 'yes' : 'NO');

const blank: Row = { figure: '', store: '', value: '', p50: '', p99: '', baseline: '', ratio: '', target: '', meets: '', note: '' };

export type Report = {
  passes: PassResult[];
  ingest: IngestRate | null;
  /** The same trades through the real path on PostgreSQL (bench/ingest-pg.ts); absent when PostgreSQL did not run. */
  pgIngest?: PgIngestRate | null;
  /** The CLI on an NDJSON file against a bare insert loop (bench/ingest-cli.ts); absent: not run. */
  ingestCli?: CliIngestRate | null;
  /** Start-up on SQLite, and on PostgreSQL when that store ran. */
  startup: Startup | null;
  postgresStartup: Startup | null;
  limiter: LimiterFigure | null;
  errors: Record<string, string>;
};

/** A pass's name in the figures: `cached`, or `cached broad` under the broad ingest. */
export function passLabel(pass: Pick<PassResult, 'name' | 'ingest'>): string {
  return pass.ingest === 'broad' ? `${pass.name} broad` : pass.name;
}

/** The rows of the table: every route of every pass, then the other figures. */
export function reportRows(report: Report): Row[] {
  const rows: Row[] = [];
  for (const pass of report.passes) {
    const label = passLabel(pass);
    const broad = pass.ingest === 'broad';
    for (const r of pass.routes) {
      rows.push({
        figure: `${label}: ${r.id}`,
        store: pass.store,
        value: `${num(r.route.rps)} req/s`,
        p50: num(r.route.p50, 1),
        p99: num(r.route.p99, 1),
        baseline: r.baseline ? `${num(r.baseline.rps)} req/s` : '-',
        ratio: num(r.ratio, 2),
        target: r.target === null ? '-' : `>= ${r.target.toFixed(2)}`,
        meets: meetsText(r.meets),
        note: r.problem ?? `${num(r.route.bytesPerAnswer)} B/answer`,
      });
    }
    const deep = pass.routes.find((r) => r.id === 'trades deep page');
    const first = pass.routes.find((r) => r.id === 'trades first page');
    const d = deepVsFirst(pass);
    const at = { ...blank, store: pass.store };
    rows.push({
      ...at,
      figure: `${label}: deep vs first trades page`,
      value: deep ? `${num(deep.route.rps)} req/s` : '-',
      baseline: first ? `${num(first.route.rps)} req/s` : '-',
      ratio: num(d.ratio, 2),
      target: `>= ${TARGETS.deepVsFirst.toFixed(2)}`,
      meets: meetsText(d.meets),
      note: pass.deepCursor.error ?? `cursor ${num(pass.deepCursor.depth)} trades deep`,
    });
    const s = pass.stream;
    // Posts' p50 / p99 where the stream measured them (mean / max in results from before it did).
    const quantiles = s?.p50Ms !== undefined && s.p99Ms !== undefined;
    rows.push({
      ...at,
      figure: `${label}: ${broad ? 'broad' : 'live'} ingest stream`,
      value: s ? `${num(s.rate, 1)} trades/s` : '-',
      p50: s ? num(quantiles ? s.p50Ms : s.meanMs, 1) : '',
      p99: s ? num(quantiles ? s.p99Ms : s.maxMs, 1) : '',
      target: quantiles ? `p99 < ${TARGETS.postP99Ms} ms` : '',
      meets: s ? meetsText(s.failed === 0 && s.accepted > 0 && (!quantiles || s.p99Ms! < TARGETS.postP99Ms)) : 'NO',
      note: s
        ? s.failed > 0
          ? `${s.failed} of ${s.posts} posts failed: ${s.firstError}`
          : `${s.posts} posts${broad ? ` of ${num(s.tokensPerPost, 1)} tokens` : ''}, ${quantiles ? `p50 / p99 ms (mean ${num(s.meanMs, 1)}, max ${num(s.maxMs, 1)})` : 'mean / max ms'}`
        : 'not run',
    });
    rows.push({
      ...at,
      figure: `${label}: CPU of other processes`,
      value: pass.otherCores === null ? '-' : `${num(pass.otherCores, 2)} cores`,
      note: pass.otherCores !== null && pass.otherCores > 0.25 ? 'the machine was shared: figures are pessimistic' : '',
    });
    if (pass.databaseCores !== null) {
      rows.push({
        ...at,
        figure: `${label}: CPU of the database`,
        value: `${num(pass.databaseCores, 2)} cores`,
        note: "the PostgreSQL server's sessions of this pass",
      });
    }
  }
  const ing = report.ingest;
  rows.push({
    ...blank,
    figure: 'ingest, real path vs bare inserts',
    store: 'sqlite',
    value: ing ? `${num(ing.realPerSecond)} trades/s` : '-',
    baseline: ing ? `${num(ing.barePerSecond)} trades/s` : '-',
    ratio: ing ? num(ing.ratio, 2) : '-',
    target: `>= ${TARGETS.ingestVsBare.toFixed(2)}`,
    meets: ing ? meetsText(atLeast(ing.ratio, TARGETS.ingestVsBare)) : '-',
    note: ing
      ? `${num(ing.trades)} trades, ${ing.batch} a batch, ${ing.registered ? `${num(ing.events)} events` : 'NO events (no subscriptions service)'}`
      : (report.errors.ingest ?? 'not run'),
  });
  const cli = report.ingestCli;
  if (cli !== undefined || report.errors.ingestCli !== undefined) {
    rows.push({
      ...blank,
      figure: 'ingest through the CLI vs a bare insert loop',
      store: 'sqlite',
      value: cli ? `${num(cli.cliPerSecond)} trades/s` : '-',
      baseline: cli ? `${num(cli.barePerSecond)} trades/s` : '-',
      ratio: cli ? num(cli.ratio, 2) : '-',
      target: `>= ${TARGETS.ingestVsBare.toFixed(2)}`,
      meets: cli ? meetsText(atLeast(cli.ratio, TARGETS.ingestVsBare)) : '-',
      note: cli
        ? `${num(cli.trades)} trades over ${cli.tokens} tokens, ${num(cli.bytes / 1e6, 1)} MB of NDJSON, whole processes (start alone: CLI ${num(cli.cliStartMs)} ms, bare ${num(cli.bareStartMs)} ms); bare ${cli.bareBatch} a transaction; ratio the median of ${cli.ratios.map((r) => num(r, 2)).join(', ')}`
        : (report.errors.ingestCli ?? 'not run'),
    });
  }
  const pgi = report.pgIngest;
  if (pgi !== undefined) {
    rows.push({
      ...blank,
      figure: 'ingest, real path vs bare multi-row insert',
      store: 'postgres',
      value: pgi ? `${num(pgi.realPerSecond)} trades/s` : '-',
      p50: pgi ? num(pgi.batchP50Ms, 1) : '',
      p99: pgi ? num(pgi.batchP99Ms, 1) : '',
      baseline: pgi ? `${num(pgi.barePerSecond)} trades/s` : '-',
      ratio: pgi ? num(pgi.ratio, 2) : '-',
      target: `>= ${TARGETS.pgIngestVsBare.toFixed(2)}`,
      meets: pgi ? meetsText(atLeast(pgi.ratio, TARGETS.pgIngestVsBare)) : '-',
      note: pgi
        ? `${num(pgi.trades)} trades, ${pgi.batch} a batch (p50 / p99 ms a batch), ${pgi.registered ? `${num(pgi.events)} events` : 'NO events'}`
        : (report.errors.pgIngest ?? 'not run'),
    });
  }
  const startupRow = (st: Startup | null, store: BenchStoreKind, why: string | undefined): Row => ({
    ...blank,
    figure: 'start-up to first /healthz 200',
    store,
    value: st && st.error === null ? `${num(st.medianMs)} ms` : '-',
    target: `< ${TARGETS.startupMs} ms`,
    meets: st && st.error === null ? meetsText(st.medianMs < TARGETS.startupMs) : st ? 'NO' : '-',
    note: st ? (st.error ?? `median of ${st.runs.map((t) => num(t)).join(', ')} ms`) : (why ?? 'not run'),
  });
  if (report.startup !== null || report.postgresStartup === null) rows.push(startupRow(report.startup, 'sqlite', report.errors.startup));
  if (report.postgresStartup !== null) rows.push(startupRow(report.postgresStartup, 'postgres', undefined));
  const lim = report.limiter;
  rows.push({
    ...blank,
    figure: 'limiter bytes per bucket',
    value: lim ? `${num(lim.bytesPerBucket, 1)} B` : '-',
    target: `<= ${TARGETS.limiterBytes} B`,
    meets: lim ? meetsText(atMost(lim.bytesPerBucket, TARGETS.limiterBytes)) : '-',
    note: lim ? `${num(lim.buckets)} IP buckets${lim.gc ? '' : ', without --expose-gc'}` : (report.errors.limiter ?? 'not run'),
  });
  return rows;
}

/** A plain-text table: a head, a rule, the rows; columns padded to their widest cell. */
export function textTable(head: readonly string[], cells: readonly string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** The report's table. */
export const formatTable = (rows: readonly Row[]): string =>
  textTable(
    COLUMNS.map(([, title]) => title),
    rows.map((r) => COLUMNS.map(([key]) => r[key])),
  );

/** Every figure that has a target and misses it (or could not be measured). */
export function failures(rows: readonly Row[]): Row[] {
  return rows.filter((r) => r.meets === 'NO');
}
