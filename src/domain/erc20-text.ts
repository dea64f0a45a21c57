/**
 * ERC-20 `symbol()` and `name()` answers as text (docs/indexer.md, Tokens): most tokens answer an
 * ABI `string`, some old ones (MKR, SAI) a `bytes32` padded with zeros, and some answer nothing
 * usable. The fallbacks make every token displayable: the symbol is the first 6 hex digits of
 * the address upper-cased, the name is the symbol.
 */

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Printable text of at most `max` characters, or null (control characters, bad UTF-8, empty). */
function clean(bytes: Uint8Array, max: number): string | null {
  let s: string;
  try {
    s = decoder.decode(bytes);
  } catch {
    return null;
  }
  s = s.replace(/\u0000+$/, '').trim();
  if (s === '' || /[\u0000-\u001f\u007f]/.test(s)) return null;
  return [...s].slice(0, max).join('');
}

function hexBytes(hex: string): Uint8Array | null {
  const h = hex.startsWith('0x') ? hex.slice(2) : hex;
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) return null;
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function word(bytes: Uint8Array, at: number): bigint | null {
  if (at + 32 > bytes.length) return null;
  let v = 0n;
  for (let i = at; i < at + 32; i++) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}

/**
 * The text of an `eth_call` answer to `symbol()` or `name()`: an ABI-encoded string (offset,
 * length, bytes), else a bytes32 (text up to its first zero byte); null when neither reads.
 */
export function decodeErc20Text(returnData: string, max: number): string | null {
  const bytes = hexBytes(returnData);
  if (bytes === null || bytes.length === 0) return null;
  if (bytes.length >= 64) {
    const offset = word(bytes, 0);
    if (offset !== null && offset + 32n <= BigInt(bytes.length)) {
      const length = word(bytes, Number(offset));
      if (length !== null && Number(offset) + 32 + Number(length) <= bytes.length) {
        const s = clean(bytes.subarray(Number(offset) + 32, Number(offset) + 32 + Number(length)), max);
        if (s !== null) return s;
      }
    }
  }
  if (bytes.length === 32) {
    const end = bytes.indexOf(0);
    return clean(bytes.subarray(0, end < 0 ? 32 : end), max);
  }
  return null;
}

/** The symbol of a token whose `symbol()` cannot be read: the 6 hex digits after `0x`, upper-cased. */
export function fallbackSymbol(address: string): string {
  return address.slice(2, 8).toUpperCase();
}

/** A token's symbol and name from its answers (null: unreadable), with the fallbacks above. */
export function tokenText(address: string, symbol: string | null, name: string | null): { symbol: string; name: string } {
  const s = symbol ?? fallbackSymbol(address);
  return { symbol: s, name: name ?? s };
}

/** A `decimals()` answer as a number of decimals, or null when it is not one (the token is skipped). */
export function decodeDecimals(returnData: string): number | null {
  const bytes = hexBytes(returnData);
  if (bytes === null || bytes.length < 32) return null;
  const v = word(bytes, 0);
  if (v === null || v > 36n) return null;
  return Number(v);
}
