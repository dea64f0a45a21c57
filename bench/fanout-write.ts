/**
 * What one stream message costs the server per socket (docs/operations.md, Benchmark, fan-out): N
 * clients in a child process that only read and discard, and the server writing one bar message
 * to every socket, ROUNDS times, two ways interleaved over three repetitions: `ws.send` per socket
 * (how the stream sent before) and one frame made once and written whole to each TCP socket (how
 * it sends now, src/http/stream-socket.ts). Prints user and system CPU per message per socket
 * (medians). Run: `npm run build && node dist/bench/fanout-write.js [N] [ROUNDS]`.
 */
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { fork } from 'node:child_process';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { frameText } from '../src/http/stream-socket.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function clients(port: number, n: number): void {
  let open = 0;
  for (let i = 0; i < n; i++) {
    const s: Socket = connect({ port, host: '127.0.0.1', localAddress: `127.0.0.${2 + (i % 64)}` });
    const key = Buffer.from(String(i).padStart(16, '0')).toString('base64');
    s.write(`GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    s.once('data', () => ++open === n && process.send?.('open'));
    s.on('data', () => {});
    s.on('error', () => {});
  }
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 2000);
  const rounds = Number(process.argv[3] ?? 50);
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false });
  const conns: { ws: WebSocket; raw: Duplex }[] = [];
  server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => conns.push({ ws, raw: socket })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const child = fork(process.argv[1]!, ['--clients', String((server.address() as AddressInfo).port), String(n)]);
  await new Promise((r) => child.once('message', r));
  while (conns.length < n) await pause(50);
  const payload = Buffer.from('{"op":"bar","sub":"s1","bar":{"t":1750000000,"o":1.23456,"h":1.3,"l":1.2,"c":1.25,"v":12345.678},"final":false}');
  const frame = frameText(payload);
  const ways: Record<string, () => void> = {
    'ws.send per socket': () => conns.forEach((c) => c.ws.send(payload, { binary: false })),
    'one frame, written whole': () => conns.forEach((c) => c.raw.write(frame)),
  };
  const runs: Record<string, { user: number; sys: number }[]> = {};
  for (let rep = 0; rep < 3; rep++) {
    for (const [name, send] of Object.entries(ways)) {
      await pause(300);
      const before = process.cpuUsage();
      for (let i = 0; i < rounds; i++) {
        send();
        await new Promise((r) => setImmediate(r));
      }
      while (conns.some((c) => c.ws.bufferedAmount > 0)) await pause(5);
      const used = process.cpuUsage(before);
      (runs[name] ??= []).push({ user: used.user / (n * rounds), sys: used.system / (n * rounds) });
    }
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, rs] of Object.entries(runs)) {
    const user = median(rs.map((r) => r.user));
    const sys = median(rs.map((r) => r.sys));
    process.stdout.write(
      `${name}: ${(user + sys).toFixed(2)} µs per message per socket (user ${user.toFixed(2)}, system ${sys.toFixed(2)}; ${n} sockets, ${rounds} rounds)\n`,
    );
  }
  child.kill();
  process.exit(0);
}

if (process.argv[2] === '--clients') clients(Number(process.argv[3]), Number(process.argv[4]));
else void main();
