/**
 * GET /v1/stream (docs/api.md, Live stream): the WebSocket upgrade, on the same server and port. The
 * upgrade request goes through the app's whole middleware stack like any request, so the caller
 * is resolved, counted in its rate-limit bucket and refused (401, 429) by the very code of the
 * HTTP routes, with the same envelope and RateLimit-* headers. Only once the route has admitted
 * it does `ws` take the socket, and the 101 carries the caller's RateLimit-* headers too.
 * Connection caps count this instance's connections, or with REDIS_URL every instance's (leases
 * in Redis, src/limiter/connection-caps.ts).
 */
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { z } from 'zod';
import { WebSocket, WebSocketServer } from 'ws';
import { errors } from '../errors.js';
import { ApiRouter } from './route.js';
import { textParam } from './validate.js';
import { clientIp } from './client-ip.js';
import { tenantRate } from './rate-limit.js';
import { Hub } from '../stream/hub.js';
import { WsStreamSocket, frameText } from './stream-socket.js';
import type { Logger } from 'pino';
import type Koa from 'koa';
import type { AppContext } from './types.js';
import type { Config } from '../config.js';
import type { Services } from '../services/index.js';
import type { Limiter } from '../limiter/limiter.js';
import type { AsyncLimiter } from '../limiter/redis-gcra.js';
import type { Coord } from '../coord/wiring.js';
import type { ConnectionInfo, StreamReads } from '../stream/types.js';
import type { Decision } from '../limiter/gcra.js';

export const STREAM_PATH = '/v1/stream';
/** A message over this many bytes closes the connection with 1008. */
export const MAX_MESSAGE_BYTES = 65_536;
/** Open connections per bucket: anonymous callers per client IP, keyed callers per tenant by plan. */
export const ANON_CONNECTIONS = 10;
export const PLAN_CONNECTIONS: Readonly<Record<string, number>> = { free: 10, pro: 200, enterprise: 2000 };
/** Retry-After of an upgrade refused for the connection cap. */
const CAP_RETRY_SECONDS = 10;

/** ws closes an oversized message with 1009; the stream's contract says 1008 (policy violation). */
class StreamWebSocket extends WebSocket {
  override close(code?: number, data?: string | Buffer): void {
    super.close(code === 1009 ? 1008 : code, data);
  }
}

type Upgrade = { socket: Duplex; head: Buffer; res: ServerResponse };
/** An app's stream: its hub, the ws server that takes admitted upgrades, and the upgrades waiting for the route. */
export type Stream = { hub: Hub; wss: WebSocketServer; upgrades: WeakMap<IncomingMessage, Upgrade> };

/** An app with its stream (createApp's App; the stream needs no more of it). */
export type StreamApp = Pick<Koa, 'callback'> & { deps: { stream: Stream } };

/** The stream of one app (createApp makes it, with the app's reads and counters). */
export function createStream(deps: { streamReads: StreamReads; services: Pick<Services, 'metrics'>; logger: Logger }): Stream {
  const hub = new Hub({
    source: deps.streamReads,
    metrics: deps.services.metrics.stream,
    frame: frameText,
    onError: (err) => deps.logger.error({ err }, 'stream fan-out failed'),
  });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    WebSocket: StreamWebSocket,
    clientTracking: false,
  });
  return { hub, wss, upgrades: new WeakMap() };
}

/** The hub of an app (tests read its counts). */
export const hubOf = (app: StreamApp): Hub => app.deps.stream.hub;

/** What the stream route takes: the stream, the connection caps and the limiter that charges a connection. */
type StreamRouteDeps = { stream: Stream; coord: Pick<Coord, 'caps'>; limiter: Limiter | AsyncLimiter; config: Config };

/** The route: admits an upgrade (cap, scope) and hands the socket to ws and the hub. */
export function streamRouter(deps: StreamRouteDeps): ApiRouter {
  const router = new ApiRouter();
  router.add(
    {
      method: 'get',
      path: STREAM_PATH,
      summary: 'WebSocket of live bars, trades, prices and overviews (an upgrade; see the docs/api.md, Live stream)',
      access: 'public',
      tag: 'stream',
      upgrade: 'websocket',
      query: z.object({ key: textParam(1, 512).optional() }),
    },
    async (_input, ctx) => {
      const { hub, wss, upgrades } = deps.stream;
      const up = upgrades.get(ctx.req);
      if (up === undefined) {
        throw errors.upgradeRequired('GET /v1/stream is a WebSocket: send Upgrade: websocket');
      }
      upgrades.delete(ctx.req);
      const caller = ctx.state.caller;
      if (caller.kind === 'key' && !caller.key.scopes.includes('read')) throw errors.forbidden('this API key lacks the read scope');
      const bucket = caller.kind === 'key' ? `tenant:${caller.tenant.id}` : `ip:${clientIp(ctx).address}`;
      const cap = caller.kind === 'key' ? (PLAN_CONNECTIONS[caller.plan.name] ?? ANON_CONNECTIONS) : ANON_CONNECTIONS;
      const full = () => errors.rateLimited(`at most ${cap} open stream connections for this caller`, CAP_RETRY_SECONDS);
      if (deps.coord.caps === null) {
        if (hub.openIn(bucket) >= cap) throw full();
      } else {
        // With REDIS_URL the cap counts every instance's connections (this one's alone while Redis is away).
        const lease = await deps.coord.caps.admit(bucket, cap);
        if (lease === null) throw full();
        // Released when the socket closes, however: after the stream, a failed handshake, a client gone meanwhile.
        if (up.socket.destroyed) {
          lease.release();
          ctx.respond = false;
          return;
        }
        up.socket.once('close', lease.release);
      }
      const headers = rateLimitLines(ctx);
      const charge = chargeFor(deps, ctx);
      const keyId = caller.kind === 'key' ? caller.key.id : null;
      // Answered by ws on the raw socket: Koa must neither write nor call it a 404.
      ctx.status = 101;
      ctx.respond = false;
      up.res.detachSocket(up.socket as Socket);
      const onHeaders = (lines: string[], req: IncomingMessage) => {
        if (req === ctx.req) lines.push(...headers);
      };
      wss.on('headers', onHeaders);
      try {
        wss.handleUpgrade(ctx.req, up.socket, up.head, (ws) => wire(hub, ws, up.socket, { bucket, keyId, charge }));
      } finally {
        wss.off('headers', onHeaders);
      }
    },
  );
  return router;
}

/**
 * Hands an open socket to the hub. Kept out of the route handler on purpose: closures made there
 * would keep the request's Koa context (and its request and response) alive for the life of the
 * connection, several KB per idle connection.
 */
function wire(hub: Hub, ws: WebSocket, raw: Duplex, info: ConnectionInfo): void {
  const handle = hub.connect(new WsStreamSocket(ws, raw), info);
  ws.on('message', (data, isBinary) => handle.message(isBinary ? '' : String(data)));
  ws.on('pong', handle.pong);
  ws.on('close', handle.closed);
  ws.on('error', () => ws.terminate());
}

/** The RateLimit-* and X-Request-Id lines of the 101. */
function rateLimitLines(ctx: AppContext): string[] {
  const r = ctx.state.rateLimit;
  const lines = [`X-Request-Id: ${ctx.state.requestId}`];
  if (r) {
    lines.push(`RateLimit-Limit: ${r.limit}`, `RateLimit-Remaining: ${Math.max(0, r.remaining)}`);
    lines.push(`RateLimit-Reset: ${Math.max(0, r.resetSeconds)}`, `RateLimit-Policy: ${r.policy}`);
  }
  return lines;
}

const waitOf = (d: Decision): number | null => (d.allowed ? null : (d.retryAfterSeconds ?? 1));

/**
 * Counts one request in the bucket the upgrade was counted in: null when allowed, else seconds to
 * wait (a promise of it when the limiter is shared through Redis).
 */
function chargeFor(deps: StreamRouteDeps, ctx: AppContext): ConnectionInfo['charge'] {
  const caller = ctx.state.caller;
  const limiter = deps.limiter;
  let decide: () => Decision | Promise<Decision>;
  if (caller.kind === 'key') {
    const id = caller.tenant.id;
    const rate = tenantRate(caller.plan);
    decide = () => limiter.tenant(id, rate, true);
  } else {
    const ip = clientIp(ctx).key;
    const rate = deps.config.rateLimitAnon;
    decide = () => limiter.ip(ip, rate, true);
  }
  return () => {
    const d = decide();
    return d instanceof Promise ? d.then(waitOf) : waitOf(d);
  };
}

export type StreamHandle = { close(): Promise<void> };

/**
 * Routes `server`'s upgrade requests through `app`, and gives the shutdown step: once the HTTP
 * requests in flight are answered, every stream connection is closed with 1001.
 */
export function attachStream(server: Server, app: StreamApp): StreamHandle {
  const handler = app.callback();
  const { hub, wss, upgrades } = app.deps.stream;
  let inFlight = 0;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    res.once('close', () => inFlight--);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    // An answer that is not a 101 is an ordinary HTTP response on this socket, then the end.
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => socket.end());
    upgrades.set(req, { socket, head, res });
    void handler(req, res);
  });
  return {
    async close() {
      const deadline = Date.now() + 8000;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      wss.close();
      await hub.close();
    },
  };
}
