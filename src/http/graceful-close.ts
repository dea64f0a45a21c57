/**
 * Closing an HTTP server without resetting a request that was already sent. Node's
 * server.close() destroys every connection it thinks idle, and a connection whose request bytes
 * are still unread in the socket counts as idle: under load, requests in flight get ECONNRESET.
 * Here a connection counts as idle only once it has answered at least one request and has none
 * in flight (a keep-alive connection between requests). A connection that has not yet delivered
 * its first request is left to do so, and every answer given after close begins carries
 * `Connection: close`, so each connection ends after its answer. After `timeoutMs` whatever is
 * left is destroyed.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

type Conn = { answered: number; inFlight: Set<ServerResponse> };

export type GracefulClose = {
  /** Stops accepting connections; resolves once every connection has ended. */
  close(timeoutMs: number): Promise<void>;
  /** Connections open now (for tests and logs). */
  readonly connections: number;
};

/** Tracks `server`'s connections; call right after creating the server, before it listens. */
export function gracefulClose(server: Server): GracefulClose {
  const conns = new Map<Socket, Conn>();
  let closing = false;
  let accepted = 0;

  const idle = (c: Conn) => c.answered > 0 && c.inFlight.size === 0;

  server.on('connection', (socket: Socket) => {
    accepted++;
    conns.set(socket, { answered: 0, inFlight: new Set() });
    socket.once('close', () => conns.delete(socket));
  });

  // Before the app's own listener, so the header is set before any answer can be written.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const c = conns.get(socket);
    if (c === undefined) return;
    c.inFlight.add(res);
    if (closing) res.setHeader('Connection', 'close');
    const done = () => {
      if (!c.inFlight.delete(res)) return;
      c.answered++;
      if (closing && c.inFlight.size === 0) socket.end();
    };
    res.once('finish', done);
    res.once('close', done);
  });

  // server.close() calls this; Node's own version would also destroy connections whose first
  // request has not been read yet.
  server.closeIdleConnections = () => {
    for (const [socket, c] of conns) if (idle(c)) socket.destroy();
  };

  return {
    get connections() {
      let open = 0;
      for (const socket of conns.keys()) if (!socket.destroyed) open++;
      return open;
    },
    close(timeoutMs) {
      closing = true;
      for (const c of conns.values()) for (const res of c.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          for (const socket of conns.keys()) socket.destroy();
        }, timeoutMs);
        timer.unref();
        // Closing the listener resets the connections still waiting in its accept queue, and
        // to their clients those are requests sent and then reset. Node accepts about one
        // connection per turn of the event loop, so keep accepting until a whole turn passes
        // with none new (the queue is empty), at most half the timeout; then close it.
        const quietBy = Date.now() + timeoutMs / 2;
        let seen = -1;
        const closeWhenQuiet = () => {
          if (accepted !== seen && Date.now() < quietBy) {
            seen = accepted;
            setImmediate(closeWhenQuiet);
            return;
          }
          // Called once every connection has ended (at once, with an error, if not listening).
          server.close(() => {
            clearTimeout(timer);
            resolve();
          });
        };
        setImmediate(closeWhenQuiet);
      });
    },
  };
}
