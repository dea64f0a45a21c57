/**
 * The naive oracle of the indexer tests: what section 17 of the product contract (docs/indexer.md)
 * says the store must hold after indexing a chain up to a block, recomputed from the node's own
 * logs and eth_calls in the plainest way: every log of the whole range in one eth_getLogs, one
 * pass in chain order, bigint raw amounts. Written apart from the indexer on purpose: it imports
 * nothing of src/domain/evm-*, src/domain/erc20-* or src/indexer/, so a shared mistake cannot
 * make both agree.
 */
import { createPublicClient, decodeAbiParameters, decodeEventLog, encodeFunctionData, http, parseAbi, type Address, type Hex, type PublicClient } from 'viem';

export type OracleConfig = {
  startBlock: number;
  dexes: { name: string; protocol: 'uniswap-v2' | 'uniswap-v3'; factory: string }[];
  quotes: ({ address: string; usd: number } | { address: string; usdPool: string })[];
  holders: boolean;
};

export type ExpectedMarket = {
  address: string;
  token: string;
  quoteAddress: string;
  quoteSymbol: string;
  dex: string;
  createdAt: number;
  liquidityUsd: number | null;
};
export type ExpectedToken = {
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  totalSupply: number;
  circulatingSupply: number;
  createdAt: number;
};
export type ExpectedTrade = {
  token: string;
  market: string;
  signature: string;
  index: number;
  blockNumber: number;
  blockTime: number;
  wallet: string;
  side: 'buy' | 'sell';
  amount: number;
  quoteAmount: number;
  priceUsd: number;
  volumeUsd: number;
};
export type ExpectedHolder = { token: string; owner: string; amount: number; raw: bigint; updatedAt: number };
export type Expected = {
  toBlock: number;
  markets: ExpectedMarket[];
  tokens: ExpectedToken[];
  /** In chain order (block, log index): the order of their record numbers. */
  trades: ExpectedTrade[];
  holders: ExpectedHolder[];
  skipped: { noQuotePools: string[]; noDecimalsPools: string[]; zeroSwaps: number };
};

export const DEAD = '0x000000000000000000000000000000000000dead';
const ZERO = '0x0000000000000000000000000000000000000000';

const events = parseAbi([
  'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 allPairsLength)',
  'event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)',
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'event Sync(uint112 reserve0, uint112 reserve1)',
  'event Initialize(uint160 sqrtPriceX96, int24 tick)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Deposit(address indexed dst, uint256 wad)',
  'event Withdrawal(address indexed src, uint256 wad)',
]);
const v3SwapEvent = parseAbi([
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
]);
const reads = parseAbi([
  'function decimals() view returns (uint8)',
  'function symbol() view returns (string)',
  'function name() view returns (string)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)',
]);

/** A log as the node answers it, numbers made numbers and the address lower-cased. */
export type RawLog = { address: string; topics: Hex[]; data: Hex; blockNumber: number; logIndex: number; transactionHash: string };
type WireLog = { address: string; topics: Hex[]; data: Hex; blockNumber: Hex; logIndex: Hex; transactionHash: string };

type Pool = { address: string; token0: string; token1: string; dex: string; protocol: 'uniswap-v2' | 'uniswap-v3'; createdBlock: number; createdIndex: number };
type PriceState = { kind: 'reserves'; r0: bigint; r1: bigint } | { kind: 'sqrt'; sqrtPriceX96: bigint };

const lc = (a: string): string => a.toLowerCase();
const big10 = (d: number): bigint => 10n ** BigInt(d);
/** raw / 10^decimals as a double, through the exact integer and fraction parts. */
const units = (raw: bigint, d: number): number => Number(raw / big10(d)) + Number(raw % big10(d)) / 10 ** d;
const abs = (x: bigint): bigint => (x < 0n ? -x : x);

export class Oracle {
  private readonly client: PublicClient;
  private readonly blockTimes = new Map<number, number>();
  private readonly txFrom = new Map<string, string>();

  constructor(rpcUrl: string) {
    this.client = createPublicClient({ transport: http(rpcUrl) });
  }

  /** An eth_call answer, or null when the call reverts. */
  async call(to: string, data: Hex, block: number): Promise<Hex | null> {
    try {
      const r = await this.client.call({ to: to as Address, data, blockNumber: BigInt(block) });
      return r.data ?? '0x';
    } catch {
      return null;
    }
  }

  async uint(to: string, fn: 'decimals' | 'totalSupply' | 'balanceOf', block: number, args: readonly unknown[] = []): Promise<bigint | null> {
    const data = await this.call(to, encodeFunctionData({ abi: reads, functionName: fn, args } as never), block);
    if (data === null || data.length !== 66) return null;
    return BigInt(data);
  }

  /** symbol() or name(): an ABI string, or a bytes32 of text padded with zeros; null when unreadable. */
  async text(to: string, fn: 'symbol' | 'name', block: number): Promise<string | null> {
    const data = await this.call(to, encodeFunctionData({ abi: reads, functionName: fn }), block);
    if (data === null || data === '0x') return null;
    if (data.length === 66) {
      const bytes = Buffer.from(data.slice(2), 'hex');
      const end = bytes.indexOf(0);
      return bytes.subarray(0, end === -1 ? 32 : end).toString('utf8');
    }
    try {
      return decodeAbiParameters([{ type: 'string' }], data)[0];
    } catch {
      return null;
    }
  }

  async blockTime(n: number): Promise<number> {
    let t = this.blockTimes.get(n);
    if (t === undefined) {
      t = Number((await this.client.getBlock({ blockNumber: BigInt(n) })).timestamp);
      this.blockTimes.set(n, t);
    }
    return t;
  }

  async from(tx: string): Promise<string> {
    let f = this.txFrom.get(tx);
    if (f === undefined) {
      f = lc((await this.client.getTransaction({ hash: tx as Hex })).from);
      this.txFrom.set(tx, f);
    }
    return f;
  }

  /** Every log of the range (of `address` when given), in chain order. */
  async logs(fromBlock: number, toBlock: number, address?: string[]): Promise<RawLog[]> {
    const wire = (await this.client.request({
      method: 'eth_getLogs',
      params: [{ fromBlock: `0x${fromBlock.toString(16)}`, toBlock: `0x${toBlock.toString(16)}`, ...(address ? { address: address as Address[] } : {}) }],
    })) as unknown as WireLog[];
    const logs = wire.map((l) => ({
      address: lc(l.address),
      topics: l.topics,
      data: l.data,
      blockNumber: Number(l.blockNumber),
      logIndex: Number(l.logIndex),
      transactionHash: lc(l.transactionHash),
    }));
    return logs.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  }

  /** What the store must hold once `config` is indexed up to `toBlock`. */
  async expect(config: OracleConfig, toBlock: number): Promise<Expected> {
    const all = await this.logs(0, toBlock);
    const quoteOrder = config.quotes.map((q) => lc(q.address));

    // Pools of the configured factories, from the factory's first block.
    const pools: Pool[] = [];
    for (const log of all) {
      const dex = config.dexes.find((d) => lc(d.factory) === log.address);
      if (dex === undefined) continue;
      const ev = tryDecode(log);
      if (dex.protocol === 'uniswap-v2' && ev?.eventName === 'PairCreated') {
        const a = ev.args as { token0: string; token1: string; pair: string };
        pools.push({
          address: lc(a.pair),
          token0: lc(a.token0),
          token1: lc(a.token1),
          dex: dex.name,
          protocol: dex.protocol,
          createdBlock: log.blockNumber,
          createdIndex: log.logIndex,
        });
      } else if (dex.protocol === 'uniswap-v3' && ev?.eventName === 'PoolCreated') {
        const a = ev.args as { token0: string; token1: string; pool: string };
        pools.push({
          address: lc(a.pool),
          token0: lc(a.token0),
          token1: lc(a.token1),
          dex: dex.name,
          protocol: dex.protocol,
          createdBlock: log.blockNumber,
          createdIndex: log.logIndex,
        });
      }
    }

    const decimals = new Map<string, number | null>();
    const decimalsOf = async (t: string): Promise<number | null> => {
      if (!decimals.has(t)) {
        const d = await this.uint(t, 'decimals', toBlock);
        decimals.set(t, d === null ? null : Number(d));
      }
      return decimals.get(t) ?? null;
    };

    type Market = Pool & { base: string; quote: string; baseIs0: boolean };
    const markets: Market[] = [];
    const skipped = { noQuotePools: [] as string[], noDecimalsPools: [] as string[], zeroSwaps: 0 };
    for (const p of pools) {
      const ranks = [quoteOrder.indexOf(p.token0), quoteOrder.indexOf(p.token1)];
      const r0 = ranks[0] as number;
      const r1 = ranks[1] as number;
      if (r0 === -1 && r1 === -1) {
        skipped.noQuotePools.push(p.address);
        continue;
      }
      const quoteIs0 = r0 !== -1 && (r1 === -1 || r0 < r1);
      const quote = quoteIs0 ? p.token0 : p.token1;
      const base = quoteIs0 ? p.token1 : p.token0;
      if ((await decimalsOf(base)) === null || (await decimalsOf(quote)) === null) {
        skipped.noDecimalsPools.push(p.address);
        continue;
      }
      markets.push({ ...p, base, quote, baseIs0: !quoteIs0 });
    }

    // Reference pools' state in chain order; each starts at its state at startBlock.
    const usdOf = new Map<string, number>();
    const poolOf = new Map<string, string>();
    for (const q of config.quotes) {
      if ('usd' in q) usdOf.set(lc(q.address), q.usd);
      else poolOf.set(lc(q.address), lc(q.usdPool));
    }
    const refState = new Map<string, PriceState>();
    const refTokens = new Map<string, { token0: string; token1: string; protocol: string }>();
    for (const [, pool] of poolOf) {
      const p = pools.find((x) => x.address === pool);
      if (p === undefined) throw new Error(`usdPool ${pool} is no pool of a configured factory`);
      refTokens.set(pool, p);
      if (p.protocol === 'uniswap-v2') {
        const data = await this.call(pool, encodeFunctionData({ abi: reads, functionName: 'getReserves' }), config.startBlock);
        const [r0, r1] = decodeAbiParameters([{ type: 'uint112' }, { type: 'uint112' }, { type: 'uint32' }], data as Hex);
        refState.set(pool, { kind: 'reserves', r0, r1 });
      } else {
        const data = await this.call(pool, encodeFunctionData({ abi: reads, functionName: 'slot0' }), config.startBlock);
        refState.set(pool, { kind: 'sqrt', sqrtPriceX96: BigInt((data as Hex).slice(0, 66)) });
      }
    }
    const quoteUsd = async (quote: string): Promise<number> => {
      const usd = usdOf.get(quote);
      if (usd !== undefined) return usd;
      const pool = poolOf.get(quote) as string;
      const p = refTokens.get(pool) as { token0: string; token1: string };
      const s = refState.get(pool) as PriceState;
      const d0 = (await decimalsOf(p.token0)) as number;
      const d1 = (await decimalsOf(p.token1)) as number;
      // Price of token0 in token1.
      const price0in1 = s.kind === 'reserves' ? units(s.r1, d1) / units(s.r0, d0) : (Number(s.sqrtPriceX96) ** 2 / 2 ** 192) * 10 ** (d0 - d1);
      return quote === p.token0 ? price0in1 * (usdOf.get(p.token1) as number) : (1 / price0in1) * (usdOf.get(p.token0) as number);
    };

    const marketByAddress = new Map(markets.map((m) => [m.address, m]));
    const trades: ExpectedTrade[] = [];
    const lastSync = new Map<string, { r0: bigint; r1: bigint }>();
    const lastEventBlock = new Map<string, number>();
    for (const log of all) {
      const m = marketByAddress.get(log.address);
      const isRef = refState.has(log.address);
      if (m === undefined && !isRef) continue;
      const ev = m?.protocol === 'uniswap-v3' || refTokens.get(log.address)?.protocol === 'uniswap-v3' ? tryDecodeV3(log) : tryDecode(log);
      if (ev?.eventName === 'Sync') {
        const a = ev.args as { reserve0: bigint; reserve1: bigint };
        lastSync.set(log.address, { r0: a.reserve0, r1: a.reserve1 });
      }
      if (log.blockNumber < config.startBlock) continue;
      lastEventBlock.set(log.address, log.blockNumber);
      if (isRef) {
        if (ev?.eventName === 'Sync') {
          const a = ev.args as { reserve0: bigint; reserve1: bigint };
          refState.set(log.address, { kind: 'reserves', r0: a.reserve0, r1: a.reserve1 });
        } else if (ev?.eventName === 'Initialize' || (ev?.eventName === 'Swap' && 'sqrtPriceX96' in (ev.args as object))) {
          refState.set(log.address, { kind: 'sqrt', sqrtPriceX96: (ev.args as { sqrtPriceX96: bigint }).sqrtPriceX96 });
        }
      }
      if (m === undefined || ev?.eventName !== 'Swap') continue;
      let baseNet: bigint;
      let quoteNet: bigint;
      if (m.protocol === 'uniswap-v2') {
        const a = ev.args as { amount0In: bigint; amount1In: bigint; amount0Out: bigint; amount1Out: bigint };
        const [baseIn, baseOut, quoteIn, quoteOut] = m.baseIs0
          ? [a.amount0In, a.amount0Out, a.amount1In, a.amount1Out]
          : [a.amount1In, a.amount1Out, a.amount0In, a.amount0Out];
        baseNet = baseOut - baseIn;
        quoteNet = quoteIn - quoteOut;
      } else {
        const a = ev.args as { amount0: bigint; amount1: bigint };
        baseNet = -(m.baseIs0 ? a.amount0 : a.amount1);
        quoteNet = m.baseIs0 ? a.amount1 : a.amount0;
      }
      if (baseNet === 0n || quoteNet === 0n) {
        skipped.zeroSwaps += 1;
        continue;
      }
      const amount = units(abs(baseNet), (await decimalsOf(m.base)) as number);
      const quoteAmount = units(abs(quoteNet), (await decimalsOf(m.quote)) as number);
      const qUsd = await quoteUsd(m.quote);
      trades.push({
        token: m.base,
        market: m.address,
        signature: log.transactionHash,
        index: log.logIndex,
        blockNumber: log.blockNumber,
        blockTime: await this.blockTime(log.blockNumber),
        wallet: await this.from(log.transactionHash),
        side: baseNet > 0n ? 'buy' : 'sell',
        amount,
        quoteAmount,
        priceUsd: (quoteAmount / amount) * qUsd,
        volumeUsd: quoteAmount * qUsd,
      });
    }

    // Tokens: the bases of markets, with the first market naming them (base or quote) for createdAt.
    const baseSet = new Set(markets.map((m) => m.base));
    const tokens: ExpectedToken[] = [];
    for (const address of baseSet) {
      const first = markets
        .filter((m) => m.token0 === address || m.token1 === address)
        .sort((a, b) => a.createdBlock - b.createdBlock || a.createdIndex - b.createdIndex)[0] as Market;
      const d = (await decimalsOf(address)) as number;
      const symbol = (await this.text(address, 'symbol', toBlock)) ?? address.slice(2, 8).toUpperCase();
      const name = (await this.text(address, 'name', toBlock)) ?? symbol;
      const supply = (await this.uint(address, 'totalSupply', toBlock)) as bigint;
      const dead = (await this.uint(address, 'balanceOf', toBlock, [DEAD])) ?? 0n;
      tokens.push({
        address,
        symbol,
        name,
        decimals: d,
        totalSupply: units(supply, d),
        circulatingSupply: units(supply - dead, d),
        createdAt: await this.blockTime(first.createdBlock),
      });
    }

    // Liquidity as of toBlock: the quote at its quoteUsd now, the base at its last trade's price.
    const lastPrice = new Map<string, number>();
    for (const tr of trades) lastPrice.set(tr.token, tr.priceUsd);
    const out: ExpectedMarket[] = [];
    for (const m of markets) {
      const bd = (await decimalsOf(m.base)) as number;
      const qd = (await decimalsOf(m.quote)) as number;
      let baseBal: bigint;
      let quoteBal: bigint;
      if (m.protocol === 'uniswap-v2') {
        const s = lastSync.get(m.address) ?? { r0: 0n, r1: 0n };
        [baseBal, quoteBal] = m.baseIs0 ? [s.r0, s.r1] : [s.r1, s.r0];
      } else {
        const at = lastEventBlock.get(m.address) ?? config.startBlock;
        baseBal = (await this.uint(m.base, 'balanceOf', at, [m.address])) as bigint;
        quoteBal = (await this.uint(m.quote, 'balanceOf', at, [m.address])) as bigint;
      }
      const basePrice = lastPrice.get(m.base);
      const liquidityUsd = basePrice === undefined ? null : units(quoteBal, qd) * (await quoteUsd(m.quote)) + units(baseBal, bd) * basePrice;
      out.push({
        address: m.address,
        token: m.base,
        quoteAddress: m.quote,
        quoteSymbol: (await this.text(m.quote, 'symbol', toBlock)) ?? m.quote.slice(2, 8).toUpperCase(),
        dex: m.dex,
        createdAt: await this.blockTime(m.createdBlock),
        liquidityUsd,
      });
    }

    const holders = config.holders ? await this.holders(all, tokens, toBlock) : [];
    return { toBlock, markets: out, tokens, trades, holders, skipped };
  }

  /** Balances folded from Transfer (and WETH9 Deposit / Withdrawal) logs since block 0. */
  private async holders(all: RawLog[], tokens: ExpectedToken[], _toBlock: number): Promise<ExpectedHolder[]> {
    const out: ExpectedHolder[] = [];
    for (const token of tokens) {
      const balance = new Map<string, bigint>();
      const updated = new Map<string, number>();
      const move = (owner: string, delta: bigint, block: number): void => {
        if (owner === ZERO) return;
        balance.set(owner, (balance.get(owner) ?? 0n) + delta);
        updated.set(owner, block);
      };
      for (const log of all) {
        if (log.address !== token.address) continue;
        const ev = tryDecode(log);
        if (ev?.eventName === 'Transfer') {
          const a = ev.args as { from: string; to: string; value: bigint };
          move(lc(a.from), -a.value, log.blockNumber);
          move(lc(a.to), a.value, log.blockNumber);
        } else if (ev?.eventName === 'Deposit') {
          const a = ev.args as { dst: string; wad: bigint };
          move(lc(a.dst), a.wad, log.blockNumber);
        } else if (ev?.eventName === 'Withdrawal') {
          const a = ev.args as { src: string; wad: bigint };
          move(lc(a.src), -a.wad, log.blockNumber);
        }
      }
      for (const [owner, raw] of balance) {
        if (raw <= 0n) continue;
        out.push({ token: token.address, owner, raw, amount: units(raw, token.decimals), updatedAt: await this.blockTime(updated.get(owner) as number) });
      }
    }
    return out;
  }

  /** balanceOf(owner) at a block, for checking the folded balances against the node itself. */
  balanceOf(token: string, owner: string, block: number): Promise<bigint | null> {
    return this.uint(token, 'balanceOf', block, [owner]);
  }
}

function tryDecode(log: { data: Hex; topics: Hex[] }): { eventName: string; args: unknown } | null {
  try {
    return decodeEventLog({ abi: events, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
  } catch {
    return null;
  }
}

function tryDecodeV3(log: { data: Hex; topics: Hex[] }): { eventName: string; args: unknown } | null {
  try {
    return decodeEventLog({ abi: v3SwapEvent, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
  } catch {
    return tryDecode(log);
  }
}
