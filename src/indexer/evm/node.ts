/**
 * The reads the indexer makes of a node, above the JSON-RPC of rpc.ts: block headers and their
 * transactions' senders, logs over a range however often the node refuses it, token metadata and
 * supplies, pool state at a block, and the block a contract was deployed in (bisecting
 * eth_getCode). Each read is one or a few calls; the counts are in docs/indexer.md, RPC cost.
 */
import { decodeDecimals, decodeErc20Text, tokenText } from '../../domain/erc20-text.js';
import { answered, refused, type RangeState } from '../../domain/evm-ranges.js';
import type { PoolState } from '../../domain/evm-pool-price.js';
import { DEAD_ADDRESS } from '../../domain/erc20-holders.js';
import { balanceOfData, CALL, num, word } from './abi.js';
import { pause, RangeRefused, type RawLog, type Rpc } from './rpc.js';

export type BlockHeader = { number: number; hash: string; parentHash: string; timestamp: number };
type RawBlock = { number: string; hash: string; parentHash: string; timestamp: string; transactions: ({ hash: string; from: string } | string)[] };

export type LogFilter = { address?: string | string[]; topics?: (string | string[] | null)[] };

export type Node = {
  head(): Promise<number>;
  header(n: number): Promise<BlockHeader>;
  /** The sender of every transaction of block `n`, by transaction hash. */
  senders(n: number): Promise<{ header: BlockHeader; from: Map<string, string> }>;
  /** Every log of [from, to] matching `filter`, in chain order; refused ranges are split. */
  logs(from: number, to: number, filter: LogFilter): Promise<RawLog[]>;
  /** decimals (null: unreadable), symbol and name with their fallbacks. */
  tokenMeta(address: string): Promise<{ decimals: number | null; symbol: string; name: string }>;
  supply(address: string, decimals: number, block: number): Promise<{ totalSupply: number | null; circulatingSupply: number | null }>;
  balanceOf(token: string, owner: string, block: number): Promise<bigint>;
  poolState(pool: string, protocol: 'uniswap-v2' | 'uniswap-v3', block: number): Promise<PoolState | null>;
  /** The first block at which `address` has code, or null when it has none at `head`. */
  deployBlock(address: string, head: number): Promise<number | null>;
  /** Drops the cached headers: after a reorg (or a torn batch) they may be of orphaned blocks. */
  forget(): void;
};

const hex = (n: number) => `0x${n.toString(16)}`;

function toHeader(b: RawBlock): BlockHeader {
  return { number: num(b.number), hash: b.hash.toLowerCase(), parentHash: b.parentHash.toLowerCase(), timestamp: num(b.timestamp) };
}

function units(raw: bigint, decimals: number): number {
  const scale = 10n ** BigInt(decimals);
  return Number(raw / scale) + Number(raw % scale) / Number(scale);
}

export function createNode(rpc: Rpc, range: { state: RangeState }, signal: AbortSignal): Node {
  const headers = new Map<number, BlockHeader>();
  const remember = (h: BlockHeader) => {
    headers.set(h.number, h);
    // A small cache: a range reads each of its blocks' headers once.
    if (headers.size > 4096) headers.delete(headers.keys().next().value!);
  };

  async function fetchBlock(n: number, full: boolean): Promise<RawBlock> {
    for (let attempt = 0; ; attempt++) {
      const b = await rpc.call<RawBlock | null>('eth_getBlockByNumber', [hex(n), full]);
      if (b !== null) return b;
      // A node behind its load balancer may not have the block yet: ask again shortly.
      await pause(Math.min(2000, 100 * 2 ** attempt), signal);
    }
  }

  async function logs(from: number, to: number, filter: LogFilter): Promise<RawLog[]> {
    try {
      const out = await rpc.getLogs({ fromBlock: from, toBlock: to, ...filter });
      range.state = answered(range.state);
      return out.filter((l) => l.removed !== true);
    } catch (err) {
      if (!(err instanceof RangeRefused)) throw err;
      range.state = refused(range.state);
      if (from === to) {
        // Even one block refused: the node is struggling; wait and ask again.
        await pause(1000, signal);
        return logs(from, to, filter);
      }
      const mid = from + Math.floor((to - from) / 2);
      return [...(await logs(from, mid, filter)), ...(await logs(mid + 1, to, filter))];
    }
  }

  return {
    head: async () => num(await rpc.call<string>('eth_blockNumber', [])),
    async header(n) {
      const cached = headers.get(n);
      if (cached !== undefined) return cached;
      const h = toHeader(await fetchBlock(n, false));
      remember(h);
      return h;
    },
    async senders(n) {
      const b = await fetchBlock(n, true);
      const header = toHeader(b);
      remember(header);
      const from = new Map<string, string>();
      for (const t of b.transactions) if (typeof t === 'object') from.set(t.hash.toLowerCase(), t.from.toLowerCase());
      return { header, from };
    },
    logs,
    async tokenMeta(address) {
      const [d, s, n] = [
        await rpc.ethCall(address, CALL.decimals, 'latest'),
        await rpc.ethCall(address, CALL.symbol, 'latest'),
        await rpc.ethCall(address, CALL.name, 'latest'),
      ];
      const text = tokenText(address, s === null ? null : decodeErc20Text(s, 32), n === null ? null : decodeErc20Text(n, 128));
      return { decimals: d === null ? null : decodeDecimals(d), ...text };
    },
    async supply(address, decimals, block) {
      const total = await rpc.ethCall(address, CALL.totalSupply, block);
      if (total === null) return { totalSupply: null, circulatingSupply: null };
      const dead = await rpc.ethCall(address, balanceOfData(DEAD_ADDRESS), block);
      const t = word(total, 0);
      const d = dead === null ? 0n : word(dead, 0);
      return { totalSupply: units(t, decimals), circulatingSupply: units(t > d ? t - d : 0n, decimals) };
    },
    async balanceOf(token, owner, block) {
      const out = await rpc.ethCall(token, balanceOfData(owner), block);
      return out === null ? 0n : word(out, 0);
    },
    async poolState(pool, protocol, block) {
      if (protocol === 'uniswap-v2') {
        const r = await rpc.ethCall(pool, CALL.getReserves, block);
        return r === null ? null : { kind: 'v2', reserve0: word(r, 0), reserve1: word(r, 1) };
      }
      const r = await rpc.ethCall(pool, CALL.slot0, block);
      return r === null || word(r, 0) === 0n ? null : { kind: 'v3', sqrtPriceX96: word(r, 0) };
    },
    async deployBlock(address, head) {
      const hasCode = async (n: number) => (await rpc.call<string>('eth_getCode', [address, hex(n)])) !== '0x';
      if (!(await hasCode(head))) return null;
      let lo = 0;
      let hi = head;
      // Invariant: code at hi; lo is the lowest block not yet ruled out.
      while (lo < hi) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (await hasCode(mid)) hi = mid;
        else lo = mid + 1;
      }
      return hi;
    },
    forget: () => headers.clear(),
  };
}
