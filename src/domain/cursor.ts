/**
 * Page cursors (docs/api.md, Token reads and Subscriptions, events, ingest): one format for every
 * walk. A cursor is an opaque base64url string: a version byte, the walk's position as 48-bit
 * integers, and an HMAC over a kind tag, the query it belongs to and those bytes, keyed with the
 * store's cursor secret (so cursors survive restarts). Any string other than one issued for this
 * same kind and query is refused: the MAC catches every change of the bytes, and the
 * canonical-encoding check catches strings that decode to the same bytes (trailing bits,
 * padding, stray characters).
 *
 * - Trade pages: the keyset position (blockTime, id) of the last trade returned and the snapshot
 *   bound (the highest trade id when the walk began), bound to token, side, wallet and range
 *   (not limit).
 * - Event pages: the id of the last event returned, bound to the tenant.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const VERSION = 1;
const INT_BYTES = 6; // 48 bits: enough for unix seconds and record ids
const MAC_BYTES = 16;
const MAX_INT = 2 ** (8 * INT_BYTES) - 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function mac(secret: Buffer, scope: string, payload: Buffer): Buffer {
  return createHmac('sha256', secret).update(scope).update(payload).digest().subarray(0, MAC_BYTES);
}

/**
 * Signs `ints` for `scope`. The scope starts with a kind tag, so a cursor of one kind is never
 * accepted as another; its fields are NUL-separated (addresses and ids never contain NUL).
 */
function seal(secret: Buffer, scope: string, ints: readonly number[]): string {
  for (const v of ints) {
    if (!Number.isSafeInteger(v) || v < 0 || v > MAX_INT) throw new RangeError(`cursor field out of range: ${v}`);
  }
  const payload = Buffer.alloc(1 + ints.length * INT_BYTES);
  payload.writeUInt8(VERSION, 0);
  ints.forEach((v, i) => payload.writeUIntBE(v, 1 + i * INT_BYTES, INT_BYTES));
  return Buffer.concat([payload, mac(secret, scope, payload)]).toString('base64url');
}

/** The `count` integers of `value` when `seal` made it for this same scope, else null. */
function open(secret: Buffer, scope: string, count: number, value: string): number[] | null {
  const payloadBytes = 1 + count * INT_BYTES;
  const total = payloadBytes + MAC_BYTES;
  if (value.length !== Math.ceil((total * 4) / 3) || !BASE64URL.test(value)) return null;
  const bytes = Buffer.from(value, 'base64url');
  if (bytes.length !== total || bytes.toString('base64url') !== value) return null;
  const payload = bytes.subarray(0, payloadBytes);
  if (!timingSafeEqual(bytes.subarray(payloadBytes), mac(secret, scope, payload))) return null;
  if (payload.readUInt8(0) !== VERSION) return null;
  return Array.from({ length: count }, (_, i) => payload.readUIntBE(1 + i * INT_BYTES, INT_BYTES));
}

/** Where a trade walk stands: the last trade returned, and the highest id the walk may return. */
export type TradeCursor = { blockTime: number; id: number; bound: number };

/** The query a trade cursor is bound to (not its limit): token, filters and time range. */
export type CursorScope = {
  token: string;
  side: 'buy' | 'sell' | null;
  wallet: string | null;
  after?: number | null;
  before?: number | null;
};

function tradeScope(scope: CursorScope): string {
  // A range is signed only when there is one, so cursors issued before ranges existed stay valid.
  const range = scope.after == null && scope.before == null ? '' : `range\0${scope.after ?? ''}\0${scope.before ?? ''}\0`;
  return `trades-cursor\0${scope.token}\0${scope.side ?? ''}\0${scope.wallet ?? ''}\0${range}`;
}

/** Encodes and signs a trade cursor for `scope`. */
export function encodeTradeCursor(secret: Buffer, scope: CursorScope, c: TradeCursor): string {
  return seal(secret, tradeScope(scope), [c.blockTime, c.id, c.bound]);
}

/** The cursor in `value` when it was issued by `encodeTradeCursor` for this same scope, else null. */
export function decodeTradeCursor(secret: Buffer, scope: CursorScope, value: string): TradeCursor | null {
  const ints = open(secret, tradeScope(scope), 3, value);
  return ints === null ? null : { blockTime: ints[0]!, id: ints[1]!, bound: ints[2]! };
}

const eventScope = (tenantId: string) => `events-cursor\0${tenantId}\0`;

/** Encodes and signs an events cursor: the tenant's walk stands after event `afterId`. */
export function encodeEventCursor(secret: Buffer, tenantId: string, afterId: number): string {
  return seal(secret, eventScope(tenantId), [afterId]);
}

/**
 * The event id in `value` when it was issued by `encodeEventCursor` for this tenant, else null.
 * Cursors of the format used before this one (base64url "e1:" + id, "." and a MAC) are still
 * read, so a client polling across an upgrade keeps its place.
 */
export function decodeEventCursor(secret: Buffer, tenantId: string, value: string): number | null {
  if (value.length > 128) return null;
  return open(secret, eventScope(tenantId), 1, value)?.[0] ?? decodeFormerEventCursor(secret, tenantId, value);
}

function decodeFormerEventCursor(secret: Buffer, tenantId: string, value: string): number | null {
  const parts = value.split('.');
  if (parts.length !== 2) return null;
  const [p, m] = parts as [string, string];
  const payloadBytes = Buffer.from(p, 'base64url');
  const macBytes = Buffer.from(m, 'base64url');
  if (payloadBytes.toString('base64url') !== p || macBytes.toString('base64url') !== m || macBytes.length !== MAC_BYTES) return null;
  const payload = payloadBytes.toString('utf8');
  const match = /^e1:(0|[1-9][0-9]{0,15})$/.exec(payload);
  const expected = createHmac('sha256', secret).update(`events\n${tenantId}\n${payload}`).digest().subarray(0, MAC_BYTES);
  if (match === null || !timingSafeEqual(macBytes, expected)) return null;
  const after = Number(match[1]);
  return Number.isSafeInteger(after) ? after : null;
}
