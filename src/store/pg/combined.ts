/**
 * Several writes in one round trip on PostgreSQL: each part a data-modifying statement run as a
 * CTE of one statement (`WITH p1 AS (INSERT ...), p2 AS (UPDATE ...) SELECT ...`), its `$n`
 * parameters renumbered after the parts before it. The ingest's derived writes go out this way
 * (docs/architecture.md, The PostgreSQL ingest): a slice's writes wait on one round trip instead
 * of one each, which under load is most of a small post's time.
 *
 * PostgreSQL runs every part exactly once, on the statement's one snapshot: a part does not see
 * another's rows (only what a part RETURNING hands to a later one by name), so the parts of one
 * statement must write different rows, never the same row twice.
 */

import { named } from './pg-repo.js';
import type pg from 'pg';

/** One part: a statement (INSERT, UPDATE or DELETE, RETURNING when a later part reads it) and its parameters. */
export type Part = { sql: string; params: readonly unknown[]; name?: string };

/** The parts as one statement, each named `name` or p1, p2, ...; `tail` is the statement's final query. */
export function combined(parts: readonly Part[], tail = 'SELECT 1'): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const ctes = parts.map((p, i) => {
    const offset = values.length;
    values.push(...p.params);
    const sql = p.sql.replace(/\$(\d+)/g, (_, n: string) => {
      const k = Number(n);
      if (k < 1 || k > p.params.length) throw new Error(`parameter $${n} of a part with ${p.params.length}`);
      return `$${k + offset}`;
    });
    return `${p.name ?? `p${i + 1}`} AS (${sql})`;
  });
  return { text: ctes.length === 0 ? tail : `WITH ${ctes.join(',\n')}\n${tail}`, values };
}

/**
 * combined() as a named prepared statement (pg-repo.ts, named()): a statement of several parts
 * takes PostgreSQL longer to parse and plan than to run for a small slice, and its texts are few
 * (which parts a slice has), so each is planned once per connection.
 */
export function combinedQuery(parts: readonly Part[], tail?: string): pg.QueryConfig {
  const { text, values } = combined(parts, tail);
  return named(text, values);
}
