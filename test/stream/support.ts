/**
 * Stream test support: the real app listening on 127.0.0.1 with the upgrade wired as the server
 * does it, and a real `ws` client that records every message and can wait for one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import WebSocket, { WebSocketServer } from 'ws';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { attachStream, type StreamHandle } from '../../src/http/stream.js';
import type { Hub } from '../../src/stream/hub.js';
import { WsStreamSocket } from '../../src/http/stream-socket.js';
import { aTrade } from '../helpers/builders.js';
import type { TradeRecord } from '../../src/domain/records.js';

export type Live = TestApp & { server: Server; base: string; wsBase: string; stream: StreamHandle; stop(): Promise<void> };

export async function startLive(opts: Parameters<typeof makeTestApp>[0] = {}): Promise<Live> {
  const t = makeTestApp(opts);
  const server = createServer(t.app.callback());
  const stream = attachStream(server, t.app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    ...t,
    server,
    stream,
    base: `http://127.0.0.1:${port}`,
    wsBase: `ws://127.0.0.1:${port}`,
    async stop() {
      await stream.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await t.close();
    },
  };
}

export type Msg = Record<string, any>;

/** A connected client that keeps every message it gets. */
export class Client {
  readonly messages: Msg[] = [];
  closeCode: number | null = null;
  private waiters: (() => void)[] = [];
  private n = 0;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)));
      this.wake();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.wake();
    });
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<Client> {
    const ws = new WebSocket(url, { headers });
    const c = new Client(ws);
    await once(ws, 'open');
    return c;
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  /** Sends a message with a fresh id and waits for the answer carrying that id. */
  async request(msg: Msg): Promise<Msg> {
    const id = `r${++this.n}`;
    this.send({ ...msg, id });
    return this.waitFor((m) => m.id === id);
  }

  /** Waits (up to `ms`) for a message matching `pred` among all received, returning the first. */
  async waitFor(pred: (m: Msg) => boolean, ms = 5000): Promise<Msg> {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = this.messages.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no matching message in ${ms} ms; got ${JSON.stringify(this.messages).slice(0, 2000)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  /** Waits until the connection is closed; gives its code. */
  async closed(ms = 5000): Promise<number> {
    const deadline = Date.now() + ms;
    while (this.closeCode === null) {
      if (Date.now() > deadline) throw new Error('connection still open');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
    return this.closeCode;
  }

  /** The messages a subscription was sent (answers to requests, which carry an id, left out). */
  of(sub: string, op?: string): Msg[] {
    return this.messages.filter((m) => m.sub === sub && !('id' in m) && (op === undefined || m.op === op));
  }

  close(): void {
    this.ws.close();
  }
}

/**
 * Resolves once the helper's writes made so far (ingest, keys) have committed: on PostgreSQL they
 * are queued (test/helpers/pg-test-store.ts) and a repo call waits for them; on SQLite they are done.
 */
export const written = async (t: TestApp): Promise<void> => void (await t.services.repos.trades.maxId());

/** Lets pending socket events run (messages already sent arrive). */
export const settle = (ms = 100) => new Promise((r) => setTimeout(r, ms));

/**
 * A bare `ws` server on 127.0.0.1 whose connections go to `hub`, wired as the server wires them
 * (messages, pongs, close), for tests that build the hub themselves; its ws:// URL.
 */
export async function serveHub(hub: Hub): Promise<{ wss: WebSocketServer; url: string }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  wss.on('connection', (ws, req) => {
    const h = hub.connect(new WsStreamSocket(ws, req.socket), { bucket: 'ip:test', keyId: null, charge: () => null });
    ws.on('message', (d) => h.message(String(d)));
    ws.on('pong', h.pong);
    ws.on('close', h.closed);
  });
  await once(wss, 'listening');
  return { wss, url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}` };
}

/** The trade ids each transaction gives token `a`: records numbered from `base + 1`, `slice` a transaction. */
export function expectedMessages(trades: readonly TradeRecord[], a: string, base: number, slice: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < trades.length; i += slice) {
    const mine = trades
      .map((t, j) => ({ t, id: base + 1 + j }))
      .slice(i, i + slice)
      .filter(({ t }) => t.token === a)
      .sort((x, y) => x.t.blockTime - y.t.blockTime || x.id - y.id);
    if (mine.length > 0) out.push(mine.map((m) => m.id));
  }
  return out;
}

/** Trades of two tokens, a mostly; times swapped in pairs so (blockTime, id) order is not id order. */
export function tradesOf(a: string, b: string, n: number): TradeRecord[] {
  return Array.from({ length: n }, (_, i) => aTrade(i % 7 === 3 ? b : a, { blockTime: 1_700_000_000 + (i ^ 1), priceUsd: 1 + (i % 10) / 10 }));
}
