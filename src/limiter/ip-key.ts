/**
 * An IP bucket's key as two uint32 halves (the form ip-table.ts stores): IPv4 addresses whole,
 * IPv6 addresses by their /56 prefix (the smallest block a provider commonly hands one customer).
 * The top byte of `lo` tags the family, so it is never 0 (0 marks an empty table slot) and an
 * IPv4 address never meets an IPv6 prefix with the same bits.
 */

export type IpKey = { hi: number; lo: number };

const TAG_V6 = 1 << 24;
const TAG_V4 = 2 << 24;
const TAG_UNKNOWN = 3 << 24;

/** The one bucket shared by requests whose address cannot be read (it should not happen). */
export const UNKNOWN_IP_KEY: IpKey = { hi: 0, lo: TAG_UNKNOWN };

/** From 4 bytes (IPv4) or 16 bytes (IPv6, of which the first 7 make the /56 prefix). */
export function ipKeyFromBytes(bytes: ArrayLike<number>): IpKey {
  const b = (i: number): number => (bytes[i] ?? 0) & 0xff;
  const word = (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
  if (bytes.length === 4) return { hi: word >>> 0, lo: TAG_V4 };
  if (bytes.length === 16) return { hi: word >>> 0, lo: (TAG_V6 | (b(4) << 16) | (b(5) << 8) | b(6)) >>> 0 };
  return UNKNOWN_IP_KEY;
}
