/**
 * One batch of blocks as the indexer indexes it (docs/indexer.md, What is indexed): the
 * factories' new pools, the pools' swaps and state changes, and the tokens' transfers of a
 * block range, walked in chain order into ingest records (tokens, markets, trades, holders) and
 * the state the next batch starts from. Everything here reads the node and changes the chain's
 * in-memory state; committing the records and that state together is run.ts's.
 */
import type { ChainIndexerConfig } from './config.js';
import type { TradeRecord, IngestRecord } from '../../domain/records.js';
import { chooseQuote, swapTrade, toUnits, usdFigures, v2Flow, v3Flow } from '../../domain/evm-swap.js';
import { liquidityUsd, referenceUsd } from '../../domain/evm-pool-price.js';
import { DEAD_ADDRESS, foldBalances, ZERO_ADDRESS } from '../../domain/erc20-holders.js';
import { decodeCreated, decodeMove, decodePoolEvent, placeOf, TOPIC, type TokenMove } from './abi.js';
import type { RawLog } from './rpc.js';
import type { Added } from '../../store/port/repos.js';
import { marketRecord, tokenRecord } from './state-records.js';
import type { BlockHeader, Node } from './node.js';
import { markBalance, markPool, markToken, type ChainState, type Pool, type Token } from './state.js';

/** What a batch counts, beside its records. */
export type BatchCounts = { trades: number; noTrade: number; unpriced: number; poolsSkipped: number; tokensSkipped: number; markets: number; tokens: number };

/**
 * `added`: what the batch adds to the store for the first time (its trades, the markets and the
 * tokens first seen in it): the undo journal's, so a reorg knows what to take back out.
 */
export type Batch = {
  records: IngestRecord[];
  headers: BlockHeader[];
  counts: BatchCounts;
  added: Added[];
  /** The block hash of every log of the range read, by block number: checked against the headers kept. */
  logHashes: Map<number, string>;
};

/** Supplies are read again at least this often (docs/indexer.md, Tokens). */
const SUPPLY_EVERY_MS = 10 * 60_000;
/** Stale supplies read in one batch at most (new, minted and burnt tokens are always read). */
const STALE_SUPPLIES_PER_BATCH = 20;
/** Addresses per eth_getLogs of token transfers (nodes bound the address list). */
const ADDRESS_CHUNK = 500;
/**
 * Block reads in flight at once: a node answers them in parallel, and one at a time the batch
 * would wait a round trip per block (requestsPerSecond still paces when each starts).
 */
const BLOCK_READS = 8;

/** Runs `fn` over `items`, at most `limit` at a time; answers in item order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const byChainOrder = (a: RawLog, b: RawLog) => {
  const d = Number.parseInt(a.blockNumber, 16) - Number.parseInt(b.blockNumber, 16);
  return d !== 0 ? d : Number.parseInt(a.logIndex, 16) - Number.parseInt(b.logIndex, 16);
};

export type BatchContext = {
  config: ChainIndexerConfig;
  node: Node;
  state: ChainState;
  /** When each stored token's supply was last read (wall clock, ms); memory only. */
  supplyReadAt: Map<string, number>;
  nowMs: () => number;
};

export class BatchBuilder {
  private readonly quoteList: string[];
  private readonly quoteUsdFixed = new Map<string, number>();
  private readonly usdPoolOf = new Map<string, string>();
  private readonly factories = new Map<string, { name: string; protocol: 'uniswap-v2' | 'uniswap-v3' }>();

  constructor(private readonly ctx: BatchContext) {
    const c = ctx.config;
    this.quoteList = c.quotes.map((q) => q.address);
    for (const q of c.quotes) {
      if ('usd' in q) this.quoteUsdFixed.set(q.address, q.usd);
      else this.usdPoolOf.set(q.address, q.usdPool);
    }
    for (const d of c.dexes) this.factories.set(d.factory, { name: d.name, protocol: d.protocol });
  }

  /** The USD price of a quote token now (in the chain order walked so far); null when unknown. */
  quoteUsd(quote: string): number | null {
    const fixed = this.quoteUsdFixed.get(quote);
    if (fixed !== undefined) return fixed;
    const poolAddress = this.usdPoolOf.get(quote);
    const pool = poolAddress === undefined ? undefined : this.ctx.state.pools.get(poolAddress);
    if (pool === undefined || pool.state === null) return null;
    const quoteIs0 = pool.token0 === quote;
    const other = quoteIs0 ? pool.token1 : pool.token0;
    const otherUsd = this.quoteUsdFixed.get(other);
    const d0 = this.ctx.state.tokens.get(pool.token0)?.decimals;
    const d1 = this.ctx.state.tokens.get(pool.token1)?.decimals;
    if (otherUsd === undefined || d0 == null || d1 == null) return null;
    return referenceUsd(pool.state, quoteIs0, d0, d1, otherUsd);
  }

  /** The reference pools (usdPool of a quote): their state is kept even when they are no market. */
  get referencePools(): ReadonlySet<string> {
    return new Set(this.usdPoolOf.values());
  }

  private async token(address: string): Promise<Token> {
    const s = this.ctx.state;
    let t = s.tokens.get(address);
    if (t === undefined) {
      const meta = await this.ctx.node.tokenMeta(address);
      t = { address, ...meta, stored: false, createdAt: 0, deployBlock: null, priceUsd: null, totalSupply: null, circulatingSupply: null };
      s.tokens.set(address, t);
      markToken(s, address);
    }
    return t;
  }

  /**
   * Registers a pool a factory created; answers the records it adds (its base token's and its
   * market's) and whether its base was newly stored (its holders then start).
   */
  private async addPool(log: RawLog, header: BlockHeader, counts: BatchCounts, newTokens: Token[]): Promise<IngestRecord[]> {
    const dex = this.factories.get(log.address.toLowerCase());
    const created = decodeCreated(log);
    if (dex === undefined || created === null) return [];
    const s = this.ctx.state;
    if (s.pools.has(created.pool)) return [];
    const pool: Pool = {
      address: created.pool,
      dex: dex.name,
      protocol: dex.protocol,
      token0: created.token0,
      token1: created.token1,
      createdBlock: header.number,
      createdAt: header.timestamp,
      market: false,
      skipped: null,
      baseIs0: true,
      state: null,
      balances: null,
      liquidityUsd: 0,
    };
    s.pools.set(pool.address, pool);
    markPool(s, pool.address);
    const choice = chooseQuote(pool, this.quoteList);
    if (choice === null) {
      pool.skipped = 'no-quote';
      counts.poolsSkipped++;
      return [];
    }
    pool.baseIs0 = choice.baseIs0;
    const base = await this.token(choice.base);
    const quote = await this.token(choice.quote);
    if (base.decimals === null || quote.decimals === null) {
      pool.skipped = 'token-unreadable';
      counts.poolsSkipped++;
      counts.tokensSkipped += (base.decimals === null ? 1 : 0) + (quote.decimals === null ? 1 : 0);
      return [];
    }
    pool.market = true;
    // A token's createdAt is its first market's, whichever side of it the token is.
    for (const t of [base, quote]) {
      if (t.createdAt !== 0) continue;
      t.createdAt = header.timestamp;
      markToken(s, t.address);
    }
    const out: IngestRecord[] = [];
    if (!base.stored) {
      base.stored = true;
      markToken(s, base.address);
      newTokens.push(base);
      counts.tokens++;
      out.push(this.tokenRecord(base));
    }
    counts.markets++;
    out.push(this.marketRecord(pool));
    return out;
  }

  tokenRecord(t: Token): IngestRecord {
    return tokenRecord(t);
  }

  marketRecord(p: Pool): IngestRecord {
    return marketRecord(p, this.ctx.state);
  }

  /**
   * Indexes [from, to]: `trades` false before startBlock (pools are found, nothing traded).
   * Answers the records in the order the ingest must apply them and the blocks read.
   */
  async build(from: number, to: number, opts: { trades: boolean; holders: boolean; finalSupplies: boolean }): Promise<Batch> {
    const { node, state: s } = this.ctx;
    const counts: BatchCounts = { trades: 0, noTrade: 0, unpriced: 0, poolsSkipped: 0, tokensSkipped: 0, markets: 0, tokens: 0 };
    const headers = new Map<number, BlockHeader>();
    const header = async (n: number) => {
      let h = headers.get(n);
      if (h === undefined) headers.set(n, (h = await node.header(n)));
      return h;
    };
    const records: IngestRecord[] = [];

    // 1. Pools the factories created, in chain order.
    const newTokens: Token[] = [];
    const created = (await node.logs(from, to, { address: [...this.factories.keys()], topics: [[TOPIC.pairCreated, TOPIC.poolCreated]] })).sort(byChainOrder);
    for (const log of created) records.push(...(await this.addPool(log, await header(Number.parseInt(log.blockNumber, 16)), counts, newTokens)));

    // 2. The holders of newly stored tokens, from their deployment up to this range.
    const touchedHolders = new Map<string, Map<string, number>>();
    const supplyMoved = new Set<string>();
    if (opts.holders) {
      for (const t of newTokens) {
        t.deployBlock = (await node.deployBlock(t.address, to)) ?? from;
        if (t.deployBlock < from)
          await this.fold(
            t.address,
            await node.logs(t.deployBlock, from - 1, { address: t.address, topics: [[TOPIC.transfer, TOPIC.deposit, TOPIC.withdrawal]] }),
            header,
            touchedHolders,
            supplyMoved,
          );
      }
    }

    // 3. This range's pool events and transfers, walked together in chain order.
    const poolLogs = opts.trades ? await node.logs(from, to, { topics: [[TOPIC.swapV2, TOPIC.sync, TOPIC.swapV3, TOPIC.initialize]] }) : [];
    const transferLogs: RawLog[] = [];
    if (opts.holders) {
      const stored = [...s.tokens.values()].filter((t) => t.stored).map((t) => t.address);
      for (let i = 0; i < stored.length; i += ADDRESS_CHUNK) {
        transferLogs.push(
          ...(await node.logs(from, to, { address: stored.slice(i, i + ADDRESS_CHUNK), topics: [[TOPIC.transfer, TOPIC.deposit, TOPIC.withdrawal]] })),
        );
      }
    }
    const known = poolLogs.filter((l) => s.pools.has(l.address.toLowerCase())).sort(byChainOrder);
    const swapBlocks = new Set<number>();
    for (const l of known) if (l.topics[0] === TOPIC.swapV2 || l.topics[0] === TOPIC.swapV3) swapBlocks.add(Number.parseInt(l.blockNumber, 16));
    const senders = new Map<string, string>();
    for (const b of await mapLimit(
      [...swapBlocks].sort((a, b) => a - b),
      BLOCK_READS,
      (n) => node.senders(n),
    )) {
      headers.set(b.header.number, b.header);
      for (const [tx, fromAddress] of b.from) senders.set(tx, fromAddress);
    }
    // The times of the blocks with transfers, read together before the walk asks for them one by one.
    const transferBlocks = new Set(transferLogs.map((l) => Number.parseInt(l.blockNumber, 16)).filter((n) => !headers.has(n)));
    for (const h of await mapLimit([...transferBlocks], BLOCK_READS, (n) => node.header(n))) headers.set(h.number, h);

    const refs = this.referencePools;
    const eventBlock = new Map<string, number>();
    const trades: TradeRecord[] = [];
    for (const l of known) {
      const pool = s.pools.get(l.address.toLowerCase())!;
      if (!pool.market && !refs.has(pool.address)) continue;
      const ev = decodePoolEvent(l);
      if (ev === null) continue;
      const place = placeOf(l);
      eventBlock.set(pool.address, place.block);
      if (ev.kind === 'sync') pool.state = { kind: 'v2', reserve0: ev.reserve0, reserve1: ev.reserve1 };
      else if (ev.kind === 'initialize' || ev.kind === 'swapV3') pool.state = { kind: 'v3', sqrtPriceX96: ev.sqrtPriceX96 };
      markPool(s, pool.address);
      if (!pool.market || (ev.kind !== 'swapV2' && ev.kind !== 'swapV3')) continue;
      const base = s.tokens.get(pool.baseIs0 ? pool.token0 : pool.token1)!;
      const quote = s.tokens.get(pool.baseIs0 ? pool.token1 : pool.token0)!;
      const flow = ev.kind === 'swapV2' ? v2Flow(ev, pool.baseIs0) : v3Flow(ev, pool.baseIs0);
      const trade = swapTrade(flow, base.decimals!, quote.decimals!);
      if (trade === null) {
        counts.noTrade++;
        continue;
      }
      const quoteUsd = this.quoteUsd(quote.address);
      if (quoteUsd === null) {
        counts.unpriced++;
        continue;
      }
      const usd = usdFigures(trade, quoteUsd);
      const wallet = senders.get(place.tx);
      if (wallet === undefined || !(usd.priceUsd > 0)) {
        counts.unpriced++;
        continue;
      }
      base.priceUsd = usd.priceUsd;
      markToken(s, base.address);
      trades.push({
        type: 'trade',
        token: base.address,
        market: pool.address,
        signature: place.tx,
        index: place.logIndex,
        blockTime: (await header(place.block)).timestamp,
        side: trade.side,
        priceUsd: usd.priceUsd,
        amount: trade.amount,
        quoteAmount: trade.quoteAmount,
        volumeUsd: usd.volumeUsd,
        wallet,
      });
    }
    counts.trades = trades.length;
    if (transferLogs.length > 0) await this.fold(null, transferLogs.sort(byChainOrder), header, touchedHolders, supplyMoved);

    // 4. V3 markets with events here: their balances as of their last event's block.
    for (const [address, block] of eventBlock) {
      const pool = s.pools.get(address)!;
      if (!pool.market || pool.protocol !== 'uniswap-v3') continue;
      pool.balances = [await node.balanceOf(pool.token0, address, block), await node.balanceOf(pool.token1, address, block)];
    }

    // 5. Supplies: new tokens, minted or burnt ones, and the stale.
    const now = this.ctx.nowMs();
    const supplyRecords: IngestRecord[] = [];
    let stale = 0;
    for (const t of s.tokens.values()) {
      if (!t.stored) continue;
      const last = this.ctx.supplyReadAt.get(t.address);
      const needed = opts.finalSupplies || supplyMoved.has(t.address) || newTokens.includes(t);
      // Stale supplies are spread over batches, so a chain of many tokens does not hold one block up.
      const refresh = !needed && (last === undefined || now - last >= SUPPLY_EVERY_MS) && stale++ < STALE_SUPPLIES_PER_BATCH;
      if (!needed && !refresh) continue;
      const sup = await node.supply(t.address, t.decimals!, to);
      this.ctx.supplyReadAt.set(t.address, now);
      if (sup.totalSupply === t.totalSupply && sup.circulatingSupply === t.circulatingSupply) continue;
      t.totalSupply = sup.totalSupply;
      t.circulatingSupply = sup.circulatingSupply;
      markToken(s, t.address);
      supplyRecords.push(this.tokenRecord(t));
    }

    // 6. Liquidity of every market whose figure moved.
    const marketRecords: IngestRecord[] = [];
    for (const p of s.pools.values()) {
      if (!p.market) continue;
      const v = this.liquidity(p);
      if (v === p.liquidityUsd) continue;
      p.liquidityUsd = v;
      markPool(s, p.address);
      marketRecords.push(this.marketRecord(p));
    }

    // 7. Holders changed, each with the block time of its last move.
    const holderRecords: IngestRecord[] = [];
    for (const [token, owners] of touchedHolders) {
      const decimals = s.tokens.get(token)!.decimals!;
      const balances = s.balances.get(token)!;
      for (const [owner, at] of owners) {
        const raw = balances.get(owner) ?? 0n;
        holderRecords.push({ type: 'holder', token, owner, amount: raw > 0n ? toUnits(raw, decimals) : 0, updatedAt: at });
      }
    }

    // The range's end block is always read: the position names its hash.
    await header(to);
    // Token records first: markets, trades and holders name them.
    const ordered = [
      ...records.filter((r) => r.type === 'token'),
      ...supplyRecords,
      ...records.filter((r) => r.type !== 'token'),
      ...marketRecords,
      ...trades,
      ...holderRecords,
    ];
    const logHashes = new Map<number, string>();
    for (const l of [...created, ...poolLogs, ...transferLogs]) {
      const n = Number.parseInt(l.blockNumber, 16);
      const hash = l.blockHash.toLowerCase();
      const seen = logHashes.get(n);
      // Two answers from two branches of one block: matches no header, so the batch is read again.
      logHashes.set(n, seen === undefined || seen === hash ? hash : 'torn');
    }
    const added: Added[] = [
      ...records.flatMap((r): Added[] =>
        r.type === 'token' ? [{ what: 'token', key: r.address }] : r.type === 'market' ? [{ what: 'market', key: r.address }] : [],
      ),
      ...trades.map((t): Added => ({ what: 'trade', key: `${t.signature}:${t.index}` })),
    ];
    return { records: ordered, headers: [...headers.values()].sort((a, b) => a.number - b.number), counts, added, logHashes };
  }

  /** A market's liquidityUsd now: its pool's two sides at the quote's USD and the base's last price. */
  private liquidity(p: Pool): number {
    const s = this.ctx.state;
    const base = s.tokens.get(p.baseIs0 ? p.token0 : p.token1)!;
    const quote = s.tokens.get(p.baseIs0 ? p.token1 : p.token0)!;
    let raw: [bigint, bigint] | null = null;
    if (p.protocol === 'uniswap-v2' && p.state?.kind === 'v2') raw = [p.state.reserve0, p.state.reserve1];
    else if (p.protocol === 'uniswap-v3') raw = p.balances;
    // Not priced before its base has traded: the base side has no value yet.
    if (raw === null || base.priceUsd === null) return p.liquidityUsd;
    const baseRaw = p.baseIs0 ? raw[0] : raw[1];
    const quoteRaw = p.baseIs0 ? raw[1] : raw[0];
    const quoteUsd = this.quoteUsd(quote.address) ?? 0;
    return liquidityUsd(toUnits(baseRaw, base.decimals!), base.priceUsd, toUnits(quoteRaw, quote.decimals!), quoteUsd);
  }

  /** Folds transfer logs (chain order) into balances; `only` restricts them to one token. */
  private async fold(
    only: string | null,
    logs: readonly RawLog[],
    header: (n: number) => Promise<BlockHeader>,
    touched: Map<string, Map<string, number>>,
    supplyMoved: Set<string>,
  ): Promise<void> {
    const s = this.ctx.state;
    for (const l of logs) {
      const token = l.address.toLowerCase();
      if (only !== null && token !== only) continue;
      const t = s.tokens.get(token);
      if (t === undefined || !t.stored) continue;
      const move: TokenMove | null = decodeMove(l);
      if (move === null) continue;
      let balances = s.balances.get(token);
      if (balances === undefined) s.balances.set(token, (balances = new Map()));
      const { changed, supplyMoved: moved } = foldBalances(balances, [move]);
      // A move to or from the dead address changes the circulating supply.
      const touchesDead = move.kind === 'transfer' && (move.from === DEAD_ADDRESS || move.to === DEAD_ADDRESS);
      if (moved || touchesDead) supplyMoved.add(token);
      if (changed.size === 0) continue;
      const at = (await header(Number.parseInt(l.blockNumber, 16))).timestamp;
      let owners = touched.get(token);
      if (owners === undefined) touched.set(token, (owners = new Map()));
      let times = s.holderAt.get(token);
      if (times === undefined) s.holderAt.set(token, (times = new Map()));
      for (const owner of changed) {
        if (owner === ZERO_ADDRESS) continue;
        owners.set(owner, at);
        times.set(owner, at);
        markBalance(s, token, owner);
      }
    }
  }
}
