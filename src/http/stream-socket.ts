/**
 * The stream's sockets (docs/api.md, Live stream): a `ws` WebSocket as the hub's StreamSocket, with
 * its messages written as frames made beforehand. The fan-out sends the same message to thousands
 * of sockets; `ws.send` would frame it, allocate, and cork-write-write-uncork once per socket.
 * Here a message is framed once (src/stream/fanout.ts) and written whole to the TCP socket `ws`
 * was handed at the upgrade, in the order of everything else written to it (pings and closes
 * still go through `ws`; without permessage-deflate, which the stream never negotiates, `ws`
 * writes at once, so frames never interleave), and counted in `ws.bufferedAmount`.
 */
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import type { Framer, StreamSocket } from '../stream/types.js';

const EMPTY = Buffer.alloc(0);

/** FIN + text opcode (RFC 6455, 5.2). */
const FIN_TEXT = 0x81;

/** An unmasked final text frame of `payload` (a server's frames are never masked). */
export const frameText: Framer = (payload) => {
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(head + n);
  frame[0] = FIN_TEXT;
  if (n < 126) frame[1] = n;
  else if (n < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    frame.writeUInt32BE(n >>> 0, 6);
  }
  payload.copy(frame, head);
  return frame;
};

/** One open stream connection: the WebSocket for its protocol, its TCP socket for the messages. */
export class WsStreamSocket implements StreamSocket {
  constructor(
    private readonly ws: WebSocket,
    private readonly raw: Duplex,
  ) {}

  write(frames: Buffer): void {
    if (this.ws.readyState === WebSocket.OPEN) this.raw.write(frames);
  }

  drained(done: () => void): void {
    // An empty write's callback comes once everything written before it is taken. Only a socket
    // that is backed up asks: a callback on every write would cost a tick per write.
    if (this.ws.readyState === WebSocket.OPEN) this.raw.write(EMPTY, done);
    else done();
  }

  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  pause(): void {
    this.ws.pause();
  }

  resume(): void {
    this.ws.resume();
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  terminate(): void {
    this.ws.terminate();
  }

  ping(): void {
    this.ws.ping();
  }
}
