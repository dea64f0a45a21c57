/**
 * A worker thread of the fan-out pass (bench/fanout.ts): holds a share of the stream subscribers,
 * so that receiving does not starve the ingest poster in the main thread. It matches each message
 * to the ingest post that caused it (trades by their first signature, bars by their close price,
 * both announced by the main thread) and reports the receipt delays. Times are absolute
 * (performance.timeOrigin + performance.now()), so they compare across threads.
 *
 * The subscribers are raw TCP sockets speaking just enough WebSocket (RFC 6455) to upgrade, send
 * masked text frames, answer pings and cut frames out of the byte stream; a message is matched by
 * searching its bytes in place, never copied, decoded or parsed whole, and the reads land in one
 * buffer shared by the thread's sockets (net's `onread`), with no stream events per read. Full `ws` clients on the same two cores
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
const QUOTE = Buffer.from('"');
const COMMA = 0x2c;
const BRACE = 0x7d;

/**
 * One read buffer for every socket of the thread: net's `onread` hands each read to the callback
 * in it, without the stream machinery or a Buffer per read, and each read is handled before the
 * next, so one buffer serves them all. What is left of an unfinished frame is copied out.
 */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

const sockets: Socket[] = [];
const sentAt = new Map<string, number>();
const delays: number[] = [];
let messages = 0;
let measuring = false;
let subscribed = 0;

/** Whether b[s, e) starts with `prefix` (no copy). */
const startsWith = (b: Buffer, s: number, e: number, prefix: Buffer): boolean =>
  e - s >= prefix.length && b.compare(prefix, 0, prefix.length, s, s + prefix.length) === 0;

/** Where `needle` starts in b[s, e), or -1 (searched in a view: the shared buffer holds stale bytes past e). */
function find(b: Buffer, s: number, e: number, needle: Buffer): number {
  const at = b.subarray(s, e).indexOf(needle);
  return at < 0 ? -1 : s + at;
}

/** One text message, the bytes b[s, e). */
function onText(b: Buffer, s: number, e: number): void {
  if (startsWith(b, s, e, SUBSCRIBED)) {
    if (++subscribed === sockets.length) post({ type: 'subscribed' });
    return;
  }
  if (!measuring) return;
  messages++;
  // Cheap matching: the first trade's signature, or the newest bar's close.
  let key: string | undefined;
  if (startsWith(b, s, e, TRADES)) {
    const at = find(b, s, e, SIGNATURE);
    if (at >= 0) {
      const from = at + SIGNATURE.length;
      key = b.toString('latin1', from, find(b, from, e, QUOTE));
    }
  } else {
    const at = find(b, s, e, CLOSE);
    if (at >= 0 && find(b, at, e, NEWEST) >= 0) {
      let end = at + CLOSE.length;
      while (end < e && b[end] !== COMMA && b[end] !== BRACE) end++;
      key = b.toString('latin1', at + CLOSE.length, end);
    }
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

/**
 * Cuts the frames out of b[0, end): handles each whole one, answers pings, and gives what is left
 * of an unfinished frame (copied, as b is the shared read buffer), or null.
 */
function frames(socket: Socket, b: Buffer, end: number): Buffer | null {
  let at = 0;
  for (;;) {
    if (end - at < 2) break;
    const len7 = b[at + 1]! & 0x7f;
    const head = len7 < 126 ? 2 : len7 === 126 ? 4 : 10;
    if (end - at < head) break;
    const n = len7 < 126 ? len7 : len7 === 126 ? b.readUInt16BE(at + 2) : b.readUInt32BE(at + 6);
    if (end - at < head + n) break;
    const opcode = b[at]! & 0x0f;
    if (opcode === 1) onText(b, at + head, at + head + n);
    else if (opcode === 9) socket.write(clientFrame(0xa, b.subarray(at + head, at + head + n)));
    at += head + n;
  }
  return at < end ? Buffer.from(b.subarray(at, end)) : null;
}

function openOne(k: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    let head: Buffer | null = Buffer.alloc(0);
    let rest: Buffer | null = null;
    // The reads of the socket: the upgrade answer, then frames.
    const callback = (n: number, b: Buffer): boolean => {
      if (head !== null) {
        head = Buffer.concat([head, b.subarray(0, n)]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return true;
        const status = head.toString('latin1', 0, head.indexOf('\r\n'));
        const after = head.subarray(end + 4);
        head = null;
        if (!status.startsWith('HTTP/1.1 101')) {
          socket.destroy();
          reject(new Error(`upgrade refused: ${status}`));
          return false;
        }
        resolve(socket);
        if (after.length > 0) rest = frames(socket, after, after.length);
      } else if (rest === null) rest = frames(socket, b, n);
      else {
        const all = Buffer.concat([rest, b.subarray(0, n)]);
        rest = frames(socket, all, all.length);
      }
      return true;
    };
    const socket = connect({
      host: url.hostname,
      port: Number(url.port),
      localAddress: `127.0.0.${2 + (k % job.clientIps)}`,
      onread: { buffer: READ_BUFFER, callback },
    });
    socket.setNoDelay(true);
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
