/**
 * A fault-injecting JSON-RPC proxy in front of a real node, HTTP and WebSocket on one loopback
 * port, for the indexer's fault tests. A programmable schedule of rules answers matching requests
 * with what real providers do on a bad day: 429 with Retry-After, a 5xx, a JSON-RPC error, an
 * answer held past the client's timeout, a dropped connection. It can also refuse eth_getLogs
 * ranges wider than N blocks, as hosted nodes do, and drop every open WebSocket at once.
 * Everything else is forwarded unchanged, so what the client finally gets is the node's answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer, type RawData } from 'ws';

export type Fault =
  /** An HTTP status with a plain body (429 with `retryAfter` seconds in Retry-After, 502, 503, ...). */
  | { kind: 'status'; status: number; retryAfter?: number }
  /** A JSON-RPC error object in place of the result. */
  | { kind: 'rpc-error'; code: number; message: string }
  /** The node's answer, sent only after `ms` (past a 10 s timeout the client has gone). */
  | { kind: 'hold'; ms: number }
  /** The connection closed with no answer. */
  | { kind: 'drop' };

export type Rule = {
  /** JSON-RPC method the rule applies to; every method when absent. */
  method?: string;
  /** Matching requests let through before the rule fires (default 0). */
  skip?: number;
  /** How many matching requests it answers with the fault (default 1). */
  times?: number;
  fault: Fault;
};

type RpcRequest = { jsonrpc: '2.0'; id: number | string | null; method: string; params?: unknown[] };

export type FaultProxy = {
  /** http://127.0.0.1:PORT */
  url: string;
  /** ws://127.0.0.1:PORT */
  wsUrl: string;
  /** Appends rules: a request takes the first rule that matches it and still has firings left. */
  schedule(...rules: Rule[]): void;
  /** Refuse eth_getLogs spanning more than `blocks` blocks (null: any span). */
  maxLogRange(blocks: number | null): void;
  /** Closes every open WebSocket connection, as a node restart or a load balancer would. */
  dropWebSockets(): void;
  /** Requests seen per method, and faults injected per kind (`range` for refused log ranges). */
  stats(): { requests: Record<string, number>; faults: Record<string, number>; pendingRules: number };
  close(): Promise<void>;
};

/** The error hosted nodes answer a too-wide eth_getLogs with (Infura's code, a message naming the limit). */
export const RANGE_ERROR_CODE = -32005;

export async function startFaultProxy(upstreamHttp: string, upstreamWs: string): Promise<FaultProxy> {
  const rules: (Rule & { seen: number; fired: number })[] = [];
  const requests: Record<string, number> = {};
  const faults: Record<string, number> = {};
  let rangeLimit: number | null = null;
  const sockets = new Set<Socket>();
  const clients = new Set<WebSocket>();

  /** The fault for this request, if a rule fires on it. */
  const faultFor = (method: string): Fault | null => {
    requests[method] = (requests[method] ?? 0) + 1;
    for (const r of rules) {
      if (r.method !== undefined && r.method !== method) continue;
      if (r.fired >= (r.times ?? 1)) continue;
      r.seen += 1;
      if (r.seen <= (r.skip ?? 0)) return null;
      r.fired += 1;
      faults[r.fault.kind] = (faults[r.fault.kind] ?? 0) + 1;
      return r.fault;
    }
    return null;
  };

  /** A range refusal for a too-wide eth_getLogs, else null. */
  const refuseRange = async (req: RpcRequest): Promise<object | null> => {
    if (rangeLimit === null || req.method !== 'eth_getLogs') return null;
    const filter = (req.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string; blockHash?: string };
    if (filter.blockHash !== undefined) return null;
    const block = async (tag: string | undefined): Promise<number> => (tag === undefined || !tag.startsWith('0x') ? await headNumber() : Number(tag));
    const span = (await block(filter.toBlock)) - (await block(filter.fromBlock)) + 1;
    if (span <= rangeLimit) return null;
    faults.range = (faults.range ?? 0) + 1;
    return {
      jsonrpc: '2.0',
      id: req.id,
      error: { code: RANGE_ERROR_CODE, message: `query exceeds max block range ${rangeLimit} (block range too large: ${span} blocks)` },
    };
  };

  const headNumber = async (): Promise<number> => {
    const r = (await forward({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] })) as { result: string };
    return Number(r.result);
  };

  const forward = async (body: unknown): Promise<unknown> => {
    const res = await fetch(upstreamHttp, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.json();
  };

  /** The answer to one request, or a fault that stands for the whole exchange. */
  const answer = async (req: RpcRequest): Promise<{ body: unknown } | { fault: Fault }> => {
    const fault = faultFor(req.method);
    if (fault !== null && fault.kind !== 'hold') {
      if (fault.kind === 'rpc-error') return { body: { jsonrpc: '2.0', id: req.id, error: { code: fault.code, message: fault.message } } };
      return { fault };
    }
    const refused = await refuseRange(req);
    const body = refused ?? (await forward(req));
    if (fault?.kind === 'hold') await new Promise((r) => setTimeout(r, fault.ms));
    return { body };
  };

  const onHttp = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const parsed = JSON.parse(Buffer.concat(chunks).toString()) as RpcRequest | RpcRequest[];
    const batch = Array.isArray(parsed) ? parsed : [parsed];
    const answers = await Promise.all(batch.map(answer));
    const fault = answers.find((a): a is { fault: Fault } => 'fault' in a)?.fault;
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
      res.writeHead(fault.status, headers).end(fault.status === 429 ? 'Too Many Requests' : 'Bad Gateway');
      return;
    }
    if (res.destroyed) return;
    const bodies = answers.map((a) => (a as { body: unknown }).body);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? bodies : bodies[0]));
  };

  const server = createServer((req, res) => {
    onHttp(req, res).catch(() => req.socket.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (client) => {
      clients.add(client);
      const upstream = new WebSocket(upstreamWs);
      const queued: RawData[] = [];
      upstream.on('open', () => {
        for (const m of queued.splice(0)) upstream.send(m.toString());
      });
      upstream.on('message', (m) => {
        if (client.readyState === WebSocket.OPEN) client.send(m.toString());
      });
      const closeBoth = (): void => {
        clients.delete(client);
        client.terminate();
        upstream.terminate();
      };
      upstream.on('close', closeBoth);
      upstream.on('error', closeBoth);
      client.on('close', closeBoth);
      client.on('error', closeBoth);
      client.on('message', (m) => {
        void (async () => {
          const req = JSON.parse(m.toString()) as RpcRequest;
          const fault = faultFor(req.method);
          if (fault?.kind === 'drop' || fault?.kind === 'status') return closeBoth();
          if (fault?.kind === 'rpc-error')
            return client.send(JSON.stringify({ jsonrpc: '2.0', id: req.id, error: { code: fault.code, message: fault.message } }));
          const refused = await refuseRange(req);
          if (refused !== null) return client.send(JSON.stringify(refused));
          if (fault?.kind === 'hold') await new Promise((r) => setTimeout(r, fault.ms));
          if (upstream.readyState === WebSocket.OPEN) upstream.send(m.toString());
          else queued.push(m);
        })();
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    schedule: (...more) => void rules.push(...more.map((r) => ({ ...r, seen: 0, fired: 0 }))),
    maxLogRange: (blocks) => void (rangeLimit = blocks),
    dropWebSockets() {
      for (const c of clients) c.terminate();
    },
    stats: () => ({ requests: { ...requests }, faults: { ...faults }, pendingRules: rules.filter((r) => r.fired < (r.times ?? 1)).length }),
    async close() {
      for (const c of clients) c.terminate();
      for (const s of sockets) s.destroy();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
