/**
 * A worker thread of the fan-out pass (bench/fanout.ts): holds a share of the stream subscribers,
 * so that receiving does not starve the ingest poster in the main thread. It matches each message
 * to the ingest post that caused it (trades by their first signature, bars by their close price,
 * both announced by the main thread) and reports the receipt delays. Times are absolute
 * (performance.timeOrigin + performance.now()), so they compare across threads.
 *
 * The subscribers are raw TCP sockets speaking just enough WebSocket (RFC 6455) to upgrade, send
 * masked text frames, answer pings and cut frames out of the byte stream; a message is matched by
 * searching its bytes, never decoded or parsed whole. Full `ws` clients on the same two cores
 * cost about as much CPU per message as the server, and their backlog showed in the figure
 * as server latency; these cost a fraction of it, so the figure measures the server.
 */
import { connect, type Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

export type ClientsJob = { wsBase: string; keys: string[]; perTenant: number; from: number; to: number; token: string; clientIps: number };
export type ToClients =
  { type: 'subscribe' } | { type: 'measure'; on: boolean } | { type: 'sent'; keys: string[]; at: number } | { type: 'report' } | { type: 'close' };
export type FromClients =
  { type: 'open' } | { type: 'subscribed' } | { type: 'report'; messages: number; delays: number[] } | { type: 'failed'; message: string };

const job = workerData as ClientsJob;
const port = parentPort!;
const now = () => performance.timeOrigin + performance.now();
const post = (m: FromClients) => port.postMessage(m);
const url = new URL(job.wsBase);

const SUBSCRIBED = Buffer.from('{"op":"subscribed"');
const TRADES = Buffer.from('{"op":"trades"');
const SIGNATURE = Buffer.from('"signature":"');
const NEWEST = Buffer.from('"final":false');
const CLOSE = Buffer.from('"c":');
const QUOTE = 0x22;
const COMMA = 0x2c;
const BRACE = 0x7d;

const sockets: Socket[] = [];
const sentAt = new Map<string, number>();
const delays: number[] = [];
let messages = 0;
let measuring = false;
let subscribed = 0;

function onText(p: Buffer): void {
  if (p.subarray(0, SUBSCRIBED.length).equals(SUBSCRIBED)) {
    if (++subscribed === sockets.length) post({ type: 'subscribed' });
    return;
  }
  if (!measuring) return;
  messages++;
  // Cheap matching: the first trade's signature, or the newest bar's close.
  let key: string | undefined;
  if (p.subarray(0, TRADES.length).equals(TRADES)) {
    const at = p.indexOf(SIGNATURE);
    if (at >= 0) key = p.toString('latin1', at + SIGNATURE.length, p.indexOf(QUOTE, at + SIGNATURE.length));
  } else if (p.indexOf(NEWEST) >= 0) {
    const at = p.indexOf(CLOSE) + CLOSE.length;
    let end = at;
    while (end < p.length && p[end] !== COMMA && p[end] !== BRACE) end++;
    key = p.toString('latin1', at, end);
  }
  const t0 = key === undefined ? undefined : sentAt.get(key);
  if (t0 !== undefined) delays.push(now() - t0);
}

/** A masked client frame (a zero mask: the payload goes as it is). */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? 2 : 4;
  const f = Buffer.alloc(head + 4 + n);
  f[0] = 0x80 | opcode;
  if (n < 126) f[1] = 0x80 | n;
  else {
    f[1] = 0x80 | 126;
    f.writeUInt16BE(n, 2);
  }
  payload.copy(f, head + 4);
  return f;
}

/** Cuts the frames out of a socket's bytes; what is left of an unfinished frame is kept. */
function reader(socket: Socket): (chunk: Buffer) => void {
  let rest: Buffer | null = null;
  return (chunk) => {
    let b = rest === null ? chunk : Buffer.concat([rest, chunk]);
    rest = null;
    for (;;) {
      if (b.length < 2) break;
      const len7 = b[1]! & 0x7f;
      const head = len7 < 126 ? 2 : len7 === 126 ? 4 : 10;
      if (b.length < head) break;
      const n = len7 < 126 ? len7 : len7 === 126 ? b.readUInt16BE(2) : b.readUInt32BE(6);
      if (b.length < head + n) break;
      const opcode = b[0]! & 0x0f;
      const payload = b.subarray(head, head + n);
      if (opcode === 1) onText(payload);
      else if (opcode === 9) socket.write(clientFrame(0xa, payload));
      b = b.subarray(head + n);
    }
    if (b.length > 0) rest = b;
  };
}

function openOne(k: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress: `127.0.0.${2 + (k % job.clientIps)}` });
    socket.setNoDelay(true);
    let head = Buffer.alloc(0);
    const onHead = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onHead);
      const status = head.toString('latin1', 0, head.indexOf('\r\n'));
      if (!status.startsWith('HTTP/1.1 101')) {
        socket.destroy();
        reject(new Error(`upgrade refused: ${status}`));
        return;
      }
      const read = reader(socket);
      socket.on('data', read);
      if (head.length > end + 4) read(head.subarray(end + 4));
      resolve(socket);
    };
    socket.on('data', onHead);
    socket.once('error', reject);
    socket.write(
      `GET /v1/stream HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${Buffer.from(String(k).padStart(16, '0')).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
        `x-api-key: ${job.keys[Math.floor(k / job.perTenant)]!}\r\n\r\n`,
    );
  });
}

async function open(): Promise<void> {
  for (let i = job.from; i < job.to; i += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, job.to - i) }, (_, j) => openOne(i + j)));
    for (const s of batch) s.on('error', () => s.destroy());
    sockets.push(...batch);
  }
}

port.on('message', (m: ToClients) => {
  if (m.type === 'subscribe') {
    sockets.forEach((socket, i) => {
      const k = job.from + i;
      const sub = k % 3 === 2 ? { channel: 'trades', token: job.token } : { channel: 'bars', token: job.token, resolution: k % 3 === 0 ? '1' : '15' };
      socket.write(clientFrame(1, Buffer.from(JSON.stringify({ op: 'subscribe', id: String(k), ...sub }))));
    });
  } else if (m.type === 'measure') {
    measuring = m.on;
  } else if (m.type === 'sent') {
    for (const key of m.keys) sentAt.set(key, m.at);
  } else if (m.type === 'report') {
    post({ type: 'report', messages, delays });
  } else if (m.type === 'close') {
    for (const s of sockets) s.destroy();
    port.close();
  }
});

open().then(
  () => post({ type: 'open' }),
  (err: unknown) => post({ type: 'failed', message: err instanceof Error ? err.message : String(err) }),
);
