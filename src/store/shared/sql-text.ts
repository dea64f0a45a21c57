/**
 * Text that both engines' SQL takes from callers: LIKE patterns and the NUL rule. Engine-free,
 * so the SQLite and PostgreSQL repos guard and escape their parameters by one rule.
 */

/** Escapes LIKE's wildcards so `%` and `_` match themselves (used with ESCAPE '\'). */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Whether a text holds a NUL. No stored symbol, name, address or dex holds one (ingest refuses
 * control characters), so such a text names and finds nothing, on either engine: PostgreSQL
 * refuses a NUL in any text parameter outright, and SQLite's LIKE reads a pattern only up to it
 * (`AB\0x%` would find the symbol AB).
 */
export const holdsNul = (s: string): boolean => s.includes('\u0000');

/** Whether a text holds a control character: no stored name does (ingest refuses them), so it finds none. */
export const holdsControl = (s: string): boolean => /[\u0000-\u001f]/.test(s);
