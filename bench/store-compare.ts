/**
 * The PostgreSQL store beside the SQLite store (`npm run bench -- --store both`): one line per
 * route of each pass that ran on both, with requests/s, p50 and p99 of each and their ratio. Pure,
 * so the tests pin it; the figures are the same as in the main table, side by side.
 */
import { passLabel, textTable, type PassResult } from './report.js';

export type StoreComparisonRow = {
  figure: string;
  sqlite: { rps: number; p50: number; p99: number };
  postgres: { rps: number; p50: number; p99: number };
  /** postgres requests/s over sqlite requests/s. */
  ratio: number | null;
  /** A run of either side with failed answers (its figures mean little), or null. */
  problem: string | null;
};

/** Rows for every route measured in a pass of the same name and ingest on both stores, in the SQLite order. */
export function storeComparison(passes: readonly PassResult[]): StoreComparisonRow[] {
  const rows: StoreComparisonRow[] = [];
  for (const lite of passes.filter((p) => p.store === 'sqlite')) {
    const other = passes.find((p) => p.store === 'postgres' && p.name === lite.name && (p.ingest ?? 'live') === (lite.ingest ?? 'live'));
    if (other === undefined) continue;
    for (const r of lite.routes) {
      const o = other.routes.find((x) => x.id === r.id);
      if (o === undefined) continue;
      const problems = [r.problem && `sqlite: ${r.problem}`, o.problem && `postgres: ${o.problem}`].filter(Boolean);
      rows.push({
        figure: `${passLabel(lite)}: ${r.id}`,
        sqlite: { rps: r.route.rps, p50: r.route.p50, p99: r.route.p99 },
        postgres: { rps: o.route.rps, p50: o.route.p50, p99: o.route.p99 },
        ratio: r.route.rps > 0 ? o.route.rps / r.route.rps : null,
        problem: problems.length > 0 ? problems.join('; ') : null,
      });
    }
  }
  return rows;
}

const num = (n: number | null, digits = 0): string =>
  n === null || !Number.isFinite(n) ? '-' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A plain-text table of the comparison, columns padded; empty when nothing ran on both. */
export function formatStoreComparison(rows: readonly StoreComparisonRow[]): string {
  if (rows.length === 0) return '';
  const head = ['figure', 'sqlite req/s', 'p50 ms', 'p99 ms', 'postgres req/s', 'p50 ms', 'p99 ms', 'postgres / sqlite', 'note'];
  const cells = rows.map((r) => [
    r.figure,
    num(r.sqlite.rps),
    num(r.sqlite.p50, 1),
    num(r.sqlite.p99, 1),
    num(r.postgres.rps),
    num(r.postgres.p50, 1),
    num(r.postgres.p99, 1),
    num(r.ratio, 2),
    r.problem ?? '',
  ]);
  return textTable(head, cells);
}
