/**
 * The HTTP server with the limits every client meets (docs/api.md, Limits): a request's headers must
 * arrive within 10 s and the whole request, body included, within 30 s, or it is answered 408 and
 * closed (Node checks every second, so at most about a second late); an idle keep-alive
 * connection closes after 5 s; and one client IP holds at most MAX_CONNECTIONS_PER_IP open
 * connections: one more is destroyed as soon as it is accepted, before any byte is read.
 *
 * The cap works on the socket's peer address, the only address known before a request arrives:
 * behind a proxy (TRUST_PROXY) that is the proxy's, so the cap then bounds the proxy's
 * connections and should be raised. IPv6 peers are grouped by /56, as the rate limiter groups
 * them; IPv4-mapped IPv6 counts as its IPv4.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import { normalizeClientIp } from './client-ip.js';

export type ServerLimits = {
  /** The whole request (headers and body) must arrive within this (ms). */
  requestTimeoutMs: number;
  /** The headers must arrive within this (ms). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (ms). */
  keepAliveTimeoutMs: number;
  /** How often Node looks for requests past their timeouts (ms). */
  checkEveryMs: number;
  /** Open connections one client IP (IPv6 /56) may hold. */
  maxConnectionsPerIp: number;
};

export const DEFAULT_SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  checkEveryMs: 1_000,
  maxConnectionsPerIp: 256,
});

export type LimitedServer = {
  server: http.Server;
  /** Open connections of a peer address's group (for tests and logs). */
  connectionsOf(address: string): number;
  /** Connections refused for being over the per-IP cap since start. */
  readonly refused: number;
};

/** The group a peer address counts in: an IPv4 address, an IPv6 /56, or one shared `unknown`. */
const groupOf = (address: string | undefined): string => normalizeClientIp(address ?? '')?.address ?? 'unknown';

/** An HTTP server for `handler` with `limits` applied; not yet listening. */
export function createLimitedServer(handler: http.RequestListener, limits: ServerLimits = DEFAULT_SERVER_LIMITS): LimitedServer {
  const server = http.createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkEveryMs,
    },
    handler,
  );
  const open = new Map<string, number>();
  let refused = 0;

  // Before any other listener, so a refused socket is gone before anything reads from it.
  server.prependListener('connection', (socket: Socket) => {
    const group = groupOf(socket.remoteAddress);
    const count = open.get(group) ?? 0;
    if (count >= limits.maxConnectionsPerIp) {
      refused++;
      socket.destroy();
      return;
    }
    open.set(group, count + 1);
    socket.once('close', () => {
      const left = (open.get(group) ?? 1) - 1;
      if (left <= 0) open.delete(group);
      else open.set(group, left);
    });
  });

  // Node hands CONNECT to this event, not to the app, and resets the socket when nobody listens:
  // answer it like any method no route serves (docs/api.md, Conventions).
  server.on('connect', (req: http.IncomingMessage, socket: Socket) => {
    const body = JSON.stringify({ error: { code: 'method_not_allowed', message: 'CONNECT is not allowed here', requestId: randomUUID() } });
    socket.on('error', () => {});
    socket.end(
      'HTTP/1.1 405 Method Not Allowed\r\nAllow: \r\nContent-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    req.resume();
  });

  return {
    server,
    connectionsOf: (address) => open.get(groupOf(address)) ?? 0,
    get refused() {
      return refused;
    },
  };
}
