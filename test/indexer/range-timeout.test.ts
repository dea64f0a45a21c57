/**
 * An eth_getLogs range whose answer takes longer than the call's timeout is halved, as a refused
 * range is (docs/indexer.md, Position and faults): retrying the same busy range would time out
 * at every attempt and stall the chain. A real HTTP JSON-RPC server that answers a range of one
 * or two blocks at once and holds any wider one past the timeout.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpc, type RawLog, type RpcOutcome } from '../../src/indexer/evm/rpc.js';
import { createNode } from '../../src/indexer/evm/node.js';
import { initialRange } from '../../src/domain/evm-ranges.js';

const TIMEOUT_MS = 300;
let server: Server;
let url: string;
const asked: [number, number][] = [];

function logAt(block: number): RawLog {
  const h = `0x${block.toString(16)}`;
  return {
    address: '0x' + '11'.repeat(20),
    topics: [],
    data: '0x',
    blockNumber: h,
    blockHash: '0x' + '22'.repeat(32),
    transactionHash: '0x' + '33'.repeat(32),
    logIndex: '0x0',
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number; params: [{ fromBlock: string; toBlock: string }] };
      const from = Number(msg.params[0].fromBlock);
      const to = Number(msg.params[0].toBlock);
      asked.push([from, to]);
      const answer = () => {
        res.setHeader('content-type', 'application/json');
        const result: RawLog[] = [];
        for (let b = from; b <= to; b++) result.push(logAt(b));
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
      };
      if (to - from + 1 <= 2) answer();
      else setTimeout(() => !res.destroyed && answer(), TIMEOUT_MS * 4).unref();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('eth_getLogs over a range that times out', () => {
  it('halves the range until each part answers, and yields every block once, in order', async () => {
    const abort = new AbortController();
    const outcomes: RpcOutcome[] = [];
    const rpc = createRpc({ url, requestsPerSecond: 1000, signal: abort.signal, timeoutMs: TIMEOUT_MS, onRequest: (_m, o) => outcomes.push(o) });
    const range = { state: initialRange(8) };
    const logs = await createNode(rpc, range, abort.signal).logs(10, 17, {});
    abort.abort();
    expect(logs.map((l) => Number(l.blockNumber))).toEqual([10, 11, 12, 13, 14, 15, 16, 17]);
    // 8 blocks time out, then each 4-block half, then the 2-block quarters answer.
    expect(asked).toEqual([
      [10, 17],
      [10, 13],
      [10, 11],
      [12, 13],
      [14, 17],
      [14, 15],
      [16, 17],
    ]);
    expect(outcomes).toEqual(['timeout', 'timeout', 'ok', 'ok', 'timeout', 'ok', 'ok']);
    expect(range.state.span).toBe(1);
  });
});
