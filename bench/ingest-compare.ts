/**
 * The two ingests side by side (`npm run bench -- --ingest both`): one line per route of each pass
 * and store measured under the live ingest (the hot token's trades) and under the broad one (trades
 * over every token, as an indexer's blocks), with each one's ratio to the ceiling and the route's
 * target. Pure, so the tests pin it; the figures are those of the main table.
 */
import { meetsText, textTable, type PassResult } from './report.js';
import type { BenchStoreKind } from './args.js';

export type IngestComparisonRow = {
  figure: string;
  store: BenchStoreKind;
  /** The route's ratio to its ceiling under each ingest (null: not measured or no baseline). */
  live: number | null;
  broad: number | null;
  target: number | null;
  /** Whether the route meets its target under both ingests (null when a side has no verdict). */
  meets: boolean | null;
  /** A run of either side with failed answers, or null. */
  problem: string | null;
};

/** Rows for every route measured under both ingests in a pass of the same name on the same store. */
export function ingestComparison(passes: readonly PassResult[]): IngestComparisonRow[] {
  const rows: IngestComparisonRow[] = [];
  for (const live of passes.filter((p) => (p.ingest ?? 'live') === 'live')) {
    const broad = passes.find((p) => p.ingest === 'broad' && p.name === live.name && p.store === live.store);
    if (broad === undefined) continue;
    for (const r of live.routes) {
      const b = broad.routes.find((x) => x.id === r.id);
      if (b === undefined) continue;
      const problems = [r.problem && `live: ${r.problem}`, b.problem && `broad: ${b.problem}`].filter(Boolean);
      rows.push({
        figure: `${live.name}: ${r.id}`,
        store: live.store,
        live: r.ratio,
        broad: b.ratio,
        target: r.target,
        meets: r.meets === null || b.meets === null ? null : r.meets && b.meets,
        problem: problems.length > 0 ? problems.join('; ') : null,
      });
    }
  }
  return rows;
}

const ratio = (n: number | null): string => (n === null || !Number.isFinite(n) ? '-' : n.toFixed(2));

/** A plain-text table of the comparison, columns padded; empty when no pass ran under both. */
export function formatIngestComparison(rows: readonly IngestComparisonRow[]): string {
  if (rows.length === 0) return '';
  const head = ['figure', 'store', 'live ratio', 'broad ratio', 'target', 'both meet', 'note'];
  const cells = rows.map((r) => [
    r.figure,
    r.store,
    ratio(r.live),
    ratio(r.broad),
    r.target === null ? '-' : `>= ${r.target.toFixed(2)}`,
    meetsText(r.meets),
    r.problem ?? '',
  ]);
  return textTable(head, cells);
}
