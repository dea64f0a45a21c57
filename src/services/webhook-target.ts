/**
 * Where a webhook may point. A webhook URL is http(s), without credentials, at most 2048
 * characters; unless private targets are allowed (WEBHOOK_ALLOW_PRIVATE), its host must be, or
 * resolve only to, public unicast addresses: loopback, private, link-local, carrier-grade NAT,
 * multicast and reserved addresses are refused, and IPv6 forms that embed IPv4 (mapped, compatible,
 * NAT64, 6to4) are judged by the IPv4 inside; Teredo is refused.
 *
 * The check runs at registration and again at every delivery (through the connection's own DNS
 * lookup), so a host that later resolves to a private address (DNS rebinding) is not called.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export const MAX_WEBHOOK_URL = 2048;
const LOOKUP_TIMEOUT_MS = 5000;

/** A webhook URL that may not be used; the message names `webhookUrl`. */
export class WebhookUrlError extends Error {}

/**
 * The IPv4 address an IPv6 address carries, where its form says it carries one: IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96, which `http://[::127.0.0.1]/` normalises to), NAT64
 * (64:ff9b::/96, RFC 6052) and 6to4 (2002::/16, RFC 3056). Such an address reaches, or is routed
 * by, that IPv4 address, so it is judged by it (docs/api.md, Subscriptions, events, ingest).
 */
export function embeddedIpv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = v6.parts;
  const low = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && (p[5] === 0xffff || p[5] === 0)) return low(p[6]!, p[7]!);
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return low(p[6]!, p[7]!);
  if (p[0] === 0x2002) return low(p[1]!, p[2]!);
  return null;
}

/**
 * True for an address that is public unicast. IPv6 forms that embed IPv4 are judged by the IPv4
 * inside; Teredo, the local-use NAT64 prefix and every other non-unicast range are refused.
 */
export function isPublicAddress(ip: string): boolean {
  try {
    const addr = ipaddr.parse(ip);
    if (addr.kind() === 'ipv6') {
      const v4 = embeddedIpv4(addr as ipaddr.IPv6);
      if (v4 !== null) return v4.range() === 'unicast';
    }
    return addr.range() === 'unicast';
  } catch {
    return false;
  }
}

/** The host of a URL as an IP literal (brackets removed), or null for a name. */
function ipLiteral(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return ipaddr.isValid(host) ? host : null;
}

/** Checks the form of a webhook URL; returns it parsed. Throws WebhookUrlError. */
export function parseWebhookUrl(value: string): URL {
  if (value.length > MAX_WEBHOOK_URL) throw new WebhookUrlError(`webhookUrl must have at most ${MAX_WEBHOOK_URL} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WebhookUrlError('webhookUrl must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookUrlError('webhookUrl must use http or https');
  if (url.username !== '' || url.password !== '') throw new WebhookUrlError('webhookUrl must not carry a user name or password');
  if (url.hostname === '') throw new WebhookUrlError('webhookUrl must name a host');
  return url;
}

// Names the switch: the usual first webhook is a receiver on the operator's own machine.
const refused = (host: string) =>
  new WebhookUrlError(
    `webhookUrl host ${host} is a loopback, private or otherwise non-public address; ` +
      'a receiver on this machine or network needs the server started with WEBHOOK_ALLOW_PRIVATE=true',
  );

async function resolveAll(hostname: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), LOOKUP_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([dns.promises.lookup(hostname, { all: true, verbatim: true }), timeout]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Validates a webhook URL for registration; returns its normalised form (URL.href). With
 * `allowPrivate` only the form is checked (no DNS).
 */
export async function checkWebhookUrl(value: string, allowPrivate: boolean): Promise<string> {
  const url = parseWebhookUrl(value);
  if (allowPrivate) return url.href;
  const literal = ipLiteral(url);
  if (literal !== null) {
    if (!isPublicAddress(literal)) throw refused(url.hostname);
    return url.href;
  }
  let addresses: string[];
  try {
    addresses = await resolveAll(url.hostname);
  } catch {
    throw new WebhookUrlError(`webhookUrl host ${url.hostname} could not be resolved`);
  }
  if (addresses.length === 0) throw new WebhookUrlError(`webhookUrl host ${url.hostname} could not be resolved`);
  if (!addresses.every(isPublicAddress)) throw refused(url.hostname);
  return url.href;
}

/** A refused target at delivery time: the URL's host is an IP literal that is not public. */
export function refusedLiteral(url: URL): boolean {
  const literal = ipLiteral(url);
  return literal !== null && !isPublicAddress(literal);
}

/**
 * A DNS lookup for outgoing webhook connections that fails when any address of the host is not
 * public, so the connection only ever goes to an address that was checked.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { all: true, verbatim: true, family: options.family ?? 0 }, (err, addresses) => {
    const cb = callback as unknown as (e: Error | null, a: string | dns.LookupAddress[], f?: number) => void;
    if (err) return cb(err, '', 0);
    const bad = addresses.length === 0 || !addresses.every((a) => isPublicAddress(a.address));
    if (bad) return cb(Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: 'EREFUSEDTARGET' }), '', 0);
    if (options.all) return cb(null, addresses);
    return cb(null, addresses[0]!.address, addresses[0]!.family);
  });
};
