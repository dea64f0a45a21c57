/**
 * The node's JSON-RPC, as the indexer calls it (docs/indexer.md, RPC cost and faults): viem's
 * HTTP transport for the wire (no retries of its own, 10 s timeout), at most `requestsPerSecond`
 * calls, and every transient fault (429 honouring Retry-After, 5xx, JSON-RPC errors, timeouts,
 * dropped connections) retried with backoff without end until the indexer stops. Two answers are
 * not faults: an `eth_getLogs` range the node refuses as too large, or that times out (RangeRefused: the caller
 * halves it) and an `eth_call` that reverts (null: the contract has no such answer).
 */
import { http, HttpRequestError, RpcRequestError, TimeoutError, type EIP1193RequestFn } from 'viem';
import { backoffMs, parseRetryAfter } from '../../domain/evm-ranges.js';

/** The node refused an eth_getLogs range as too large or too many results. */
export class RangeRefused extends Error {}
/** The indexer was stopped while a call waited. */
export class Stopped extends Error {}

export type RpcOutcome = 'ok' | 'refused' | 'reverted' | 'rate_limited' | 'http_error' | 'rpc_error' | 'timeout' | 'network_error';

export type Rpc = {
  /** One JSON-RPC call, retried through every transient fault. */
  call<T>(method: string, params: unknown[]): Promise<T>;
  /** eth_getLogs; throws RangeRefused when the node refuses the range. */
  getLogs(filter: { fromBlock: number; toBlock: number; address?: string | string[]; topics?: (string | string[] | null)[] }): Promise<RawLog[]>;
  /** eth_call at a block; null when the call reverts or answers nothing. */
  ethCall(to: string, data: string, block: number | 'latest'): Promise<string | null>;
};

export type RawLog = {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
};

const RANGE_REFUSED = /range|too many|too large|exceed|limit|more than/i;
const REVERTED = /revert/i;
const hex = (n: number) => `0x${n.toString(16)}`;

export type RpcOptions = {
  url: string;
  requestsPerSecond: number;
  signal: AbortSignal;
  /** Called once per attempt with its method and outcome (the indexer_rpc_requests_total counter). */
  onRequest?: (method: string, outcome: RpcOutcome) => void;
  /** Called before a retry with the error and the wait (the indexer logs faults once in a while). */
  onRetry?: (method: string, err: unknown, waitMs: number) => void;
  timeoutMs?: number;
};

/** Waits `ms`, or throws Stopped at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new Stopped('stopped'));
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    };
    const abort = () => {
      done();
      reject(new Stopped('stopped'));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** A pacer: calls start at least 1000 / rate ms apart, in the order they asked. */
function pacer(rate: number, signal: AbortSignal): () => Promise<void> {
  const gap = 1000 / rate;
  let next = 0;
  return async () => {
    const now = performance.now();
    const at = Math.max(now, next);
    next = at + gap;
    if (at > now) await pause(at - now, signal);
  };
}

function classify(err: unknown): { outcome: RpcOutcome; retryAfterMs: number | null; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  let e: unknown = err;
  // viem wraps: walk the causes for the first one we know.
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    if (e instanceof RpcRequestError) return { outcome: 'rpc_error', retryAfterMs: null, message: e.shortMessage + ' ' + (e.details ?? '') };
    if (e instanceof TimeoutError) return { outcome: 'timeout', retryAfterMs: null, message };
    if (e instanceof HttpRequestError) {
      if (e.status === 429) return { outcome: 'rate_limited', retryAfterMs: parseRetryAfter(e.headers?.get('retry-after'), Date.now()), message };
      if (e.status !== undefined) return { outcome: 'http_error', retryAfterMs: null, message };
      return { outcome: 'network_error', retryAfterMs: null, message };
    }
    e = e.cause;
  }
  return { outcome: 'network_error', retryAfterMs: null, message };
}

export function createRpc(opts: RpcOptions): Rpc {
  const transport = http(opts.url, { retryCount: 0, timeout: opts.timeoutMs ?? 10_000, batch: false })({ retryCount: 0 });
  const request = transport.request as EIP1193RequestFn;
  const pace = pacer(opts.requestsPerSecond, opts.signal);

  /** One attempt loop; `answer` maps an RPC error to an answer (or rethrows it as final). */
  async function attempt<T>(
    method: string,
    params: unknown[],
    onRpcError?: (code: number, message: string) => { final: unknown } | null,
    onTimeout?: () => Error | null,
  ): Promise<T> {
    for (let n = 0; ; n++) {
      if (opts.signal.aborted) throw new Stopped('stopped');
      await pace();
      try {
        const out = (await request({ method: method as 'eth_chainId', params: params as never })) as T;
        opts.onRequest?.(method, 'ok');
        return out;
      } catch (err) {
        const c = classify(err);
        if (c.outcome === 'rpc_error' && onRpcError !== undefined) {
          const rpcErr = findRpcError(err);
          const settled = onRpcError(rpcErr?.code ?? 0, `${rpcErr?.message ?? ''} ${c.message}`);
          if (settled !== null) {
            if (settled.final instanceof Error) {
              opts.onRequest?.(method, 'refused');
              throw settled.final;
            }
            opts.onRequest?.(method, 'reverted');
            return settled.final as T;
          }
        }
        opts.onRequest?.(method, c.outcome);
        const given = c.outcome === 'timeout' ? (onTimeout?.() ?? null) : null;
        if (given !== null) throw given;
        const wait = backoffMs(n, c.retryAfterMs);
        opts.onRetry?.(method, err, wait);
        await pause(wait, opts.signal);
      }
    }
  }

  return {
    call: (method, params) => attempt(method, params),
    async getLogs(f) {
      const filter: Record<string, unknown> = { fromBlock: hex(f.fromBlock), toBlock: hex(f.toBlock) };
      if (f.address !== undefined) filter.address = f.address;
      if (f.topics !== undefined) filter.topics = f.topics;
      return attempt<RawLog[]>(
        'eth_getLogs',
        [filter],
        (code, message) => (code === -32005 || RANGE_REFUSED.test(message) ? { final: new RangeRefused(message) } : null),
        // A range whose logs take longer than the timeout to answer would time out again at every
        // retry: it is refused too, so the caller halves it (a single block is retried instead).
        () => (f.toBlock > f.fromBlock ? new RangeRefused('the range timed out') : null),
      );
    },
    async ethCall(to, data, block) {
      const out = await attempt<string | null>('eth_call', [{ to, data }, block === 'latest' ? 'latest' : hex(block)], (code, message) =>
        code === 3 || REVERTED.test(message) ? { final: null } : null,
      );
      return out === null || out === '0x' ? null : out;
    },
  };
}

function findRpcError(err: unknown): { code: number; message: string } | null {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    if (e instanceof RpcRequestError) return { code: e.code, message: e.message };
    e = e.cause;
  }
  return null;
}
