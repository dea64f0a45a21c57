/**
 * A worker thread of the fan-out pass (bench/fanout.ts): holds a share of the stream subscribers,
 * so that receiving does not starve the ingest poster in the main thread. It matches each message
 * to the ingest post that caused it (trades by their first signature, bars by their close price,
 * both announced by the main thread) and reports the receipt delays. Times are absolute
 * (performance.timeOrigin + performance.now()), so they compare across threads.
 */
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

export type ClientsJob = { wsBase: string; keys: string[]; perTenant: number; from: number; to: number; token: string; clientIps: number };
export type ToClients =
  { type: 'subscribe' } | { type: 'measure'; on: boolean } | { type: 'sent'; keys: string[]; at: number } | { type: 'report' } | { type: 'close' };
export type FromClients =
  { type: 'open' } | { type: 'subscribed' } | { type: 'report'; messages: number; delays: number[] } | { type: 'failed'; message: string };

const job = workerData as ClientsJob;
const port = parentPort!;
const now = () => performance.timeOrigin + performance.now();
const post = (m: FromClients) => port.postMessage(m);

const sockets: WebSocket[] = [];
const sentAt = new Map<string, number>();
const delays: number[] = [];
let messages = 0;
let measuring = false;
let subscribed = 0;

function onMessage(data: Buffer): void {
  const text = data.toString();
  if (text.startsWith('{"op":"subscribed"')) {
    if (++subscribed === sockets.length) post({ type: 'subscribed' });
    return;
  }
  if (!measuring) return;
  messages++;
  // Cheap matching, no full parse: the first trade's signature, or the newest bar's close.
  const key = text.startsWith('{"op":"trades"')
    ? /"signature":"([^"]+)"/.exec(text)?.[1]
    : text.includes('"final":false')
      ? /"c":([^,}]+)/.exec(text)?.[1]
      : undefined;
  const t0 = key === undefined ? undefined : sentAt.get(key);
  if (t0 !== undefined) delays.push(now() - t0);
}

async function open(): Promise<void> {
  for (let i = job.from; i < job.to; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, job.to - i) }, (_, j) => {
        const k = i + j;
        const ws = new WebSocket(`${job.wsBase}/v1/stream`, {
          headers: { 'x-api-key': job.keys[Math.floor(k / job.perTenant)]! },
          localAddress: `127.0.0.${2 + (k % job.clientIps)}`,
          perMessageDeflate: false,
          skipUTF8Validation: true,
        });
        sockets.push(ws);
        ws.on('message', onMessage);
        return new Promise<void>((resolve, reject) => {
          ws.once('open', () => resolve());
          ws.once('error', reject);
          ws.once('unexpected-response', (_q, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
        });
      }),
    );
  }
}

port.on('message', (m: ToClients) => {
  if (m.type === 'subscribe') {
    sockets.forEach((ws, i) => {
      const k = job.from + i;
      const sub = k % 3 === 2 ? { channel: 'trades', token: job.token } : { channel: 'bars', token: job.token, resolution: k % 3 === 0 ? '1' : '15' };
      ws.send(JSON.stringify({ op: 'subscribe', id: String(k), ...sub }));
    });
  } else if (m.type === 'measure') {
    measuring = m.on;
  } else if (m.type === 'sent') {
    for (const key of m.keys) sentAt.set(key, m.at);
  } else if (m.type === 'report') {
    post({ type: 'report', messages, delays });
  } else if (m.type === 'close') {
    for (const ws of sockets) ws.terminate();
    port.close();
  }
});

open().then(
  () => post({ type: 'open' }),
  (err: unknown) => post({ type: 'failed', message: err instanceof Error ? err.message : String(err) }),
);
