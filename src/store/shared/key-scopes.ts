/**
 * How an API key's scopes are stored: one comma-separated text column (empty: no scopes), the
 * same on every engine, so each accounts repo writes and reads them by these two functions.
 */

/** The column value of a key's scopes. */
export const scopesColumn = (scopes: readonly string[]): string => scopes.join(',');

/** A stored key row with its scopes column read back as a list. */
export const withScopes = <R extends { scopes: string }>(r: R): Omit<R, 'scopes'> & { scopes: string[] } => ({
  ...r,
  scopes: r.scopes === '' ? [] : r.scopes.split(','),
});
