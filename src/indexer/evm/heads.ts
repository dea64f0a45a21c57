/**
 * Head following (docs/indexer.md, Following the head): with `wsUrl`, the node pushes each new
 * block over `eth_subscribe("newHeads")` and the indexer wakes at once; a dropped socket is
 * opened again with backoff, and meanwhile (and every 10 s in any case, so a silent socket cannot
 * stall the chain) the head is polled. Without `wsUrl` the head is polled every `pollMs`.
 */
import WebSocket from 'ws';
import { backoffMs } from '../../domain/evm-ranges.js';
import { pause, Stopped } from './rpc.js';

export type Heads = {
  /**
   * Resolves with a head above `after` (polled through `poll` when nothing is pushed), or a polled
   * head below it: the node went back to a shorter branch, which the indexer must see (Reorgs).
   */
  next(after: number, poll: () => Promise<number>): Promise<number>;
  close(): void;
};

/** How long a subscribed indexer waits for a push before it polls anyway. */
const PUSH_SILENCE_MS = 10_000;

export function createHeads(opts: { wsUrl: string | null; pollMs: number; signal: AbortSignal; onError?: (err: unknown) => void }): Heads {
  let pushed = -1;
  let connected = false;
  let wake: (() => void) | null = null;
  let socket: WebSocket | null = null;
  let failures = 0;

  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  function open() {
    if (opts.wsUrl === null || opts.signal.aborted) return;
    const ws = new WebSocket(opts.wsUrl);
    socket = ws;
    ws.on('open', () => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    });
    ws.on('message', (data) => {
      let msg: { id?: number; result?: unknown; error?: unknown; params?: { result?: { number?: string } } };
      try {
        msg = JSON.parse(String(data)) as typeof msg;
      } catch {
        return;
      }
      if (msg.id === 1) {
        if (msg.error !== undefined) ws.close();
        else {
          connected = true;
          failures = 0;
        }
        return;
      }
      const n = msg.params?.result?.number;
      if (typeof n === 'string') {
        pushed = Math.max(pushed, Number.parseInt(n, 16));
        notify();
      }
    });
    ws.on('error', (err) => opts.onError?.(err));
    ws.on('close', () => {
      connected = false;
      socket = null;
      if (opts.signal.aborted) return;
      const wait = backoffMs(failures++);
      setTimeout(open, wait).unref();
      // Wake the waiter so it polls while the socket is down.
      notify();
    });
  }
  open();
  opts.signal.addEventListener('abort', () => {
    socket?.close();
    notify();
  });

  return {
    async next(after, poll) {
      for (;;) {
        if (opts.signal.aborted) throw new Stopped('stopped');
        if (pushed > after) return pushed;
        const waitMs = connected ? PUSH_SILENCE_MS : opts.pollMs;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            wake = null;
            resolve();
          }, waitMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        if (pushed > after) return pushed;
        if (opts.signal.aborted) throw new Stopped('stopped');
        const head = await poll();
        if (head !== after) return head;
        if (!connected) await pause(0, opts.signal);
      }
    },
    close() {
      socket?.close();
    },
  };
}
