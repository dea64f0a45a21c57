/**
 * The fault-injecting proxy against a real anvil: it forwards what it does not fault unchanged,
 * fires its schedule's rules exactly where told (skip, times, method), and injects each kind of
 * fault the indexer must survive, over HTTP and WebSocket.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startAnvil, type Anvil } from './scenario.js';
import { RANGE_ERROR_CODE, startFaultProxy, type FaultProxy } from './fault-proxy.js';

let anvil: Anvil;
let proxy: FaultProxy;

beforeAll(async () => {
  anvil = await startAnvil();
  await rpc(anvil.rpcUrl, 'anvil_mine', ['0x32']);
}, 60_000);

beforeEach(async () => {
  await proxy?.close();
  proxy = await startFaultProxy(anvil.rpcUrl, anvil.wsUrl);
});

afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

type Answer = { status: number; retryAfter: string | null; body: unknown };

async function post(url: string, body: unknown, signal?: AbortSignal): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  return (await post(url, { jsonrpc: '2.0', id: 1, method, params })).body;
}

const call = (method: string, params: unknown[] = [], id = 1): object => ({ jsonrpc: '2.0', id, method, params });

describe('the fault proxy over HTTP', () => {
  it("forwards single and batch requests unchanged, answering the node's own results", async () => {
    expect(await rpc(proxy.url, 'eth_blockNumber')).toEqual(await rpc(anvil.rpcUrl, 'eth_blockNumber'));
    const block = await post(proxy.url, [call('eth_chainId', [], 1), call('eth_getBlockByNumber', ['0x5', false], 2)]);
    const direct = await post(anvil.rpcUrl, [call('eth_chainId', [], 1), call('eth_getBlockByNumber', ['0x5', false], 2)]);
    expect(block).toEqual(direct);
    expect(proxy.stats()).toEqual({ requests: { eth_blockNumber: 1, eth_chainId: 1, eth_getBlockByNumber: 1 }, faults: {}, pendingRules: 0 });
  });

  it('answers 429 with Retry-After, then lets the next request through', async () => {
    proxy.schedule({ fault: { kind: 'status', status: 429, retryAfter: 2 } });
    const first = await post(proxy.url, call('eth_blockNumber'));
    expect([first.status, first.retryAfter, first.body]).toEqual([429, '2', 'Too Many Requests']);
    expect((await post(proxy.url, call('eth_blockNumber'))).status).toBe(200);
  });

  it('fires a rule on its method only, after `skip` matching requests, `times` times', async () => {
    proxy.schedule({ method: 'eth_chainId', skip: 1, times: 2, fault: { kind: 'status', status: 503 } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      statuses.push((await post(proxy.url, call('eth_blockNumber'))).status);
      statuses.push((await post(proxy.url, call('eth_chainId'))).status);
    }
    expect(statuses).toEqual([200, 200, 200, 503, 200, 503, 200, 200]);
    expect(proxy.stats().faults).toEqual({ status: 2 });
  });

  it('answers a JSON-RPC error in place of the result', async () => {
    proxy.schedule({ method: 'eth_getLogs', fault: { kind: 'rpc-error', code: -32603, message: 'internal error' } });
    expect(await rpc(proxy.url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2' }])).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'internal error' },
    });
    expect(await rpc(proxy.url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2' }])).toEqual({ jsonrpc: '2.0', id: 1, result: [] });
  });

  it('drops the connection with no answer', async () => {
    proxy.schedule({ fault: { kind: 'drop' } });
    await expect(post(proxy.url, call('eth_blockNumber'))).rejects.toThrow();
    expect((await post(proxy.url, call('eth_blockNumber'))).status).toBe(200);
  });

  it('holds an answer past the client giving up, and serves the next request meanwhile', async () => {
    proxy.schedule({ method: 'eth_getBlockByNumber', fault: { kind: 'hold', ms: 3000 } });
    await expect(post(proxy.url, call('eth_getBlockByNumber', ['0x1', false]), AbortSignal.timeout(300))).rejects.toThrow();
    expect(await rpc(proxy.url, 'eth_blockNumber')).toEqual(await rpc(anvil.rpcUrl, 'eth_blockNumber'));
  });

  it('refuses eth_getLogs wider than the limit as hosted nodes do, and serves the ones within it', async () => {
    proxy.maxLogRange(10);
    expect(await rpc(proxy.url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0xa' }])).toEqual({ jsonrpc: '2.0', id: 1, result: [] });
    expect(await rpc(proxy.url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0xb' }])).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: RANGE_ERROR_CODE, message: 'query exceeds max block range 10 (block range too large: 11 blocks)' },
    });
    expect(await rpc(proxy.url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }])).toMatchObject({ error: { code: RANGE_ERROR_CODE } });
    expect(proxy.stats().faults).toEqual({ range: 2 });
  });
});

describe('the fault proxy over WebSocket', () => {
  function open(
    url: string,
  ): Promise<{ ws: WebSocket; next(): Promise<{ id?: number; result?: unknown; error?: unknown; method?: string; params?: { result: { number: string } } }> }> {
    const ws = new WebSocket(url);
    const inbox: unknown[] = [];
    const waiting: ((m: unknown) => void)[] = [];
    ws.on('message', (m) => {
      const msg = JSON.parse(m.toString()) as unknown;
      const w = waiting.shift();
      if (w) w(msg);
      else inbox.push(msg);
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () =>
        resolve({ ws, next: () => (inbox.length > 0 ? Promise.resolve(inbox.shift() as never) : new Promise((r) => waiting.push(r as never))) }),
      );
      ws.once('error', reject);
    });
  }

  it("forwards a newHeads subscription: a mined block's header arrives", async () => {
    const c = await open(proxy.wsUrl);
    c.ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'])));
    const sub = await c.next();
    expect(typeof sub.result).toBe('string');
    const before = Number(((await rpc(anvil.rpcUrl, 'eth_blockNumber')) as { result: string }).result);
    await rpc(anvil.rpcUrl, 'evm_mine');
    const head = await c.next();
    expect([head.method, Number(head.params?.result.number)]).toEqual(['eth_subscription', before + 1]);
    c.ws.close();
  });

  it('answers a scheduled JSON-RPC error, and drops every socket when told', async () => {
    proxy.schedule({ method: 'eth_blockNumber', fault: { kind: 'rpc-error', code: -32000, message: 'header not found' } });
    const c = await open(proxy.wsUrl);
    c.ws.send(JSON.stringify(call('eth_blockNumber', [], 7)));
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'header not found' } });
    c.ws.send(JSON.stringify(call('eth_blockNumber', [], 8)));
    expect((await c.next()).id).toBe(8);
    const closed = new Promise<void>((r) => c.ws.once('close', () => r()));
    proxy.dropWebSockets();
    await closed;
    expect(c.ws.readyState).toBe(WebSocket.CLOSED);
  });
});
