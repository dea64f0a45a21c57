/**
 * Trade-page cursors (docs/api.md, Token reads): an opaque base64url string carrying the keyset
 * position (blockTime, id) of the last trade returned and the snapshot bound (the highest trade
 * id when the walk began), signed with an HMAC that also covers the query it belongs to (token,
 * side, wallet; not limit). Any string other than one issued for this same query is refused:
 * the MAC catches every change of the bytes, and the canonical-encoding check catches strings
 * that decode to the same bytes (trailing bits, padding, stray characters).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where a walk stands: the last trade returned, and the highest id the walk may return. */
export type TradeCursor = { blockTime: number; id: number; bound: number };

/** The query a cursor is bound to (not its limit): token, filters and time range. */
export type CursorScope = {
  token: string;
  side: 'buy' | 'sell' | null;
  wallet: string | null;
  after?: number | null;
  before?: number | null;
};

const VERSION = 1;
const INT_BYTES = 6; // 48 bits: enough for unix seconds and trade ids
const MAC_BYTES = 16;
const PAYLOAD_BYTES = 1 + 3 * INT_BYTES;
const TOTAL_BYTES = PAYLOAD_BYTES + MAC_BYTES;
const ENCODED_LENGTH = Math.ceil((TOTAL_BYTES * 4) / 3);
const MAX_INT = 2 ** (8 * INT_BYTES) - 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function mac(secret: Buffer, scope: CursorScope, payload: Buffer): Buffer {
  // A domain tag keeps cursors of other kinds signed with the same secret from being replayed here;
  // NUL separators keep the fields apart (addresses never contain NUL).
  // A range is signed only when there is one, so cursors issued before ranges existed stay valid.
  const range = scope.after == null && scope.before == null ? '' : `range\0${scope.after ?? ''}\0${scope.before ?? ''}\0`;
  return createHmac('sha256', secret)
    .update(`trades-cursor\0${scope.token}\0${scope.side ?? ''}\0${scope.wallet ?? ''}\0${range}`)
    .update(payload)
    .digest()
    .subarray(0, MAC_BYTES);
}

/** Encodes and signs a cursor for `scope`. */
export function encodeTradeCursor(secret: Buffer, scope: CursorScope, c: TradeCursor): string {
  for (const v of [c.blockTime, c.id, c.bound]) {
    if (!Number.isSafeInteger(v) || v < 0 || v > MAX_INT) throw new RangeError(`cursor field out of range: ${v}`);
  }
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  payload.writeUInt8(VERSION, 0);
  payload.writeUIntBE(c.blockTime, 1, INT_BYTES);
  payload.writeUIntBE(c.id, 1 + INT_BYTES, INT_BYTES);
  payload.writeUIntBE(c.bound, 1 + 2 * INT_BYTES, INT_BYTES);
  return Buffer.concat([payload, mac(secret, scope, payload)]).toString('base64url');
}

/** The cursor in `value` when it was issued by `encodeTradeCursor` for this same scope, else null. */
export function decodeTradeCursor(secret: Buffer, scope: CursorScope, value: string): TradeCursor | null {
  if (value.length !== ENCODED_LENGTH || !BASE64URL.test(value)) return null;
  const bytes = Buffer.from(value, 'base64url');
  if (bytes.length !== TOTAL_BYTES || bytes.toString('base64url') !== value) return null;
  const payload = bytes.subarray(0, PAYLOAD_BYTES);
  if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), mac(secret, scope, payload))) return null;
  if (payload.readUInt8(0) !== VERSION) return null;
  return {
    blockTime: payload.readUIntBE(1, INT_BYTES),
    id: payload.readUIntBE(1 + INT_BYTES, INT_BYTES),
    bound: payload.readUIntBE(1 + 2 * INT_BYTES, INT_BYTES),
  };
}
