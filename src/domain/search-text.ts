/**
 * How /v1/search folds and cuts text (docs/api.md, Search): the case folding of symbols, names and
 * queries, the short grams that index names for one- and two-character queries, and the bounds
 * of a symbol prefix. Pure: both engines' search index keeps and reads its rows by these rules,
 * and the read models fold queries with the same foldCase.
 */

/**
 * The folding search uses for symbols, names and queries: JavaScript's toLowerCase, so
 * case-insensitive matching covers more than ASCII (SQLite's lower() and NOCASE fold ASCII only).
 */
export const foldCase = (s: string): string => s.toLowerCase();

/** The distinct one- and two-character substrings of `s` (characters are code points, as in SQLite). */
export function shortGrams(s: string): Set<string> {
  const cs = [...s];
  const out = new Set<string>();
  for (let i = 0; i < cs.length; i++) {
    out.add(cs[i]!);
    if (i + 1 < cs.length) out.add(cs[i]! + cs[i + 1]!);
  }
  return out;
}

/** Highest code point: no folded symbol with the prefix P sorts at or after P + this. */
const TOP = '\u{10FFFF}';

/** The first folded symbol (byte order) past every symbol that starts with `prefix`. */
export const prefixEnd = (prefix: string): string => prefix + TOP;

/**
 * Where a page of the symbols starting with `prefix` seeks to, after the (sym, address) `from` of
 * the previous page: never below the prefix, so each page reads its own rows only.
 */
export const prefixSeek = (prefix: string, from: { sym: string; address: string }): { sym: string; address: string } =>
  from.sym < prefix ? { sym: prefix, address: '' } : from;

/** Characters a name substring needs before the trigram index can answer it (shorter: the short grams). */
export const TRIGRAM = 3;

/** A token's search index row as stored: its address and folded symbol and name. */
export type SearchRow = { address: string; sym: string; name: string };

/**
 * What keeping one token's index row takes, from the token as stored (`source`) and its index row
 * now (`current`, undefined when it has none): null when the row is up to date; else the row to
 * write and, when the name changed (or the row is new), the short grams to drop and to add. Both
 * engines apply this with their own statements.
 */
export function searchIndexChange(
  source: { address: string; symbol: string; name: string },
  current: { sym: string; name: string } | undefined,
): { row: SearchRow; names: { drop: string[] | null; add: string[] } | null } | null {
  const sym = foldCase(source.symbol);
  const name = foldCase(source.name);
  if (current !== undefined && current.sym === sym && current.name === name) return null;
  const row = { address: source.address, sym, name };
  if (current !== undefined && current.name === name) return { row, names: null };
  return { row, names: { drop: current === undefined ? null : [...shortGrams(current.name)], add: [...shortGrams(name)] } };
}
