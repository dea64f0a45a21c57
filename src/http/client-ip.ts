/**
 * The client's address for the limiter (docs/api.md, Rate limits). Koa already applies TRUST_PROXY
 * (createApp sets `proxy: trustProxy > 0, maxIpsCount: trustProxy`), so `ctx.ip` is the socket
 * peer when no proxy is trusted, and otherwise the X-Forwarded-For entry added by the outermost
 * trusted hop: entries a client writes itself sit further left and are never read.
 *
 * Here the address is normalised: IPv4-mapped IPv6 becomes IPv4, IPv6 is grouped by its /56
 * prefix, a port or brackets a proxy may add are dropped. An unreadable forwarded value falls back
 * to the socket peer (the proxy), never to anything the client chose.
 */
import ipaddr from 'ipaddr.js';
import { ipKeyFromBytes, UNKNOWN_IP_KEY, type IpKey } from '../limiter/ip-key.js';
import type { AppContext } from './types.js';

export type ClientIp = {
  /** `203.0.113.7`, or an IPv6 /56 such as `2001:db8:0:1200::/56`, or `unknown`. */
  address: string;
  /** The limiter's bucket key. */
  key: IpKey;
};

const V4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_V6 = /^\[([^\]]+)\](?::\d{1,5})?$/;

/** Parses one address as a socket or a proxy reports it; null when it is not a plain address. */
export function parseAddress(raw: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  let s = raw.trim();
  s = BRACKETED_V6.exec(s)?.[1] ?? V4_WITH_PORT.exec(s)?.[1] ?? s;
  // Only dotted-quad IPv4: ipaddr.js also reads `1.2.3` and `0x7f.1`, which no proxy writes.
  if (ipaddr.IPv4.isValidFourPartDecimal(s)) return ipaddr.IPv4.parse(s);
  if (!ipaddr.IPv6.isValid(s)) return null;
  const v6 = ipaddr.IPv6.parse(s);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/** The bucket for an address string; null when it cannot be read. */
export function normalizeClientIp(raw: string): ClientIp | null {
  const addr = parseAddress(raw);
  if (addr === null) return null;
  const bytes = addr.toByteArray();
  if (addr.kind() === 'ipv4') return { address: addr.toString(), key: ipKeyFromBytes(bytes) };
  const prefix = bytes.map((b, i) => (i < 7 ? b : 0));
  return { address: `${ipaddr.fromByteArray(prefix).toString()}/56`, key: ipKeyFromBytes(prefix) };
}

/** The request's client bucket: ctx.ip, else the socket peer, else one shared `unknown` bucket. */
/** Addresses as Koa gives them, normalised: parsing one costs more than the limiter's whole decision. */
const seen = new Map<string, ClientIp>();
/** Entries kept before starting again (a few hundred kilobytes; an attacker's spread of addresses only refills it). */
const SEEN_MAX = 4096;

export function clientIp(ctx: AppContext): ClientIp {
  const raw = ctx.ip;
  const hit = seen.get(raw);
  if (hit !== undefined) return hit;
  const own = normalizeClientIp(raw);
  // Only an address that normalises by itself is kept: otherwise the answer depends on the socket.
  if (own === null) return normalizeClientIp(ctx.req.socket?.remoteAddress ?? '') ?? { address: 'unknown', key: UNKNOWN_IP_KEY };
  if (seen.size >= SEEN_MAX) seen.clear();
  seen.set(raw, own);
  return own;
}
