/**
 * A TCP proxy in front of the test PostgreSQL, which a test closes (every connection through it
 * cut, new ones refused) and opens again on the same port: the database "stopped" and "back" for
 * one instance, without touching the shared server.
 */
import net from 'node:net';
import { freePort } from './instances.js';

export type PgProxy = {
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  open(): Promise<void>;
  /** Cuts every connection and stops listening: connecting is refused until open(). */
  close(): Promise<void>;
};

export async function pgProxy(target: string): Promise<PgProxy> {
  const t = new URL(target);
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  return {
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async open() {
      const s = net.createServer((client) => {
        const upstream = net.connect(Number(t.port || 5432), t.hostname);
        for (const [a, b] of [
          [client, upstream],
          [upstream, client],
        ] as const) {
          sockets.add(a);
          a.on('error', () => b.destroy());
          a.on('close', () => {
            sockets.delete(a);
            b.destroy();
          });
          a.pipe(b);
        }
      });
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', resolve);
      });
      server = s;
    },
    async close() {
      const s = server;
      server = null;
      for (const sock of sockets) sock.destroy();
      if (s !== null) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}
