/**
 * Token, market and wallet addresses: base58 (32-44 characters, case-sensitive) or EVM-style
 * `0x` + 40 hex digits, which are lower-cased so that any spelling finds the same row.
 */

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const EVM = /^0x[0-9a-fA-F]{40}$/;

/** The canonical form of an address, or null when the string is not a well-formed address. */
export function normalizeAddress(value: string): string | null {
  if (BASE58.test(value)) return value;
  if (EVM.test(value)) return value.toLowerCase();
  return null;
}

export const isAddress = (value: string): boolean => normalizeAddress(value) !== null;
