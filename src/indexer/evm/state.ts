/**
 * What a chain's indexer carries from block to block (docs/indexer.md, Position and faults): the
 * pools its factories created, the tokens it read, each reference pool's state and each token's
 * raw holder balances (with the block time of each holder's last move). It lives in memory while
 * the indexer runs and in the store's indexer_state rows, written in the transaction of the blocks
 * that changed it; after a failed commit, a restart or a reorg it is read back from there, so
 * memory never runs ahead of the store. A reorg restores rows from the undo journal first
 * (reorg.ts), with the same readers as here.
 */
import type { PoolState } from '../../domain/evm-pool-price.js';
import type { IndexerRepo, StateRow } from '../../store/port/repos.js';

export type Pool = {
  address: string;
  dex: string;
  protocol: 'uniswap-v2' | 'uniswap-v3';
  token0: string;
  token1: string;
  createdBlock: number;
  createdAt: number;
  /** Whether it is a market (holds a quote and both tokens read); otherwise why it is skipped. */
  market: boolean;
  skipped: 'no-quote' | 'token-unreadable' | null;
  baseIs0: boolean;
  /** V2 reserves of its last Sync, or V3 price of its last Swap or Initialize; null when unknown. */
  state: PoolState | null;
  /** V3: the pool's raw token balances as of its last event's block (for liquidity). */
  balances: [bigint, bigint] | null;
  /** The last liquidityUsd written in its market record. */
  liquidityUsd: number;
};

export type Token = {
  address: string;
  decimals: number | null;
  symbol: string;
  name: string;
  /** Stored as a token: the base of at least one market. */
  stored: boolean;
  /** The block time of the first market naming it (as base or quote); 0 before that. */
  createdAt: number;
  /** The block its contract was deployed in (holders are folded from there). */
  deployBlock: number | null;
  /** Its last trade's priceUsd in chain order (liquidity prices the base with it). */
  priceUsd: number | null;
  totalSupply: number | null;
  circulatingSupply: number | null;
};

export type ChainState = {
  pools: Map<string, Pool>;
  tokens: Map<string, Token>;
  /** Raw balances: token -> owner -> balance. */
  balances: Map<string, Map<string, bigint>>;
  /** The block time of each holder's last move: token -> owner -> time (a holder record's updatedAt). */
  holderAt: Map<string, Map<string, number>>;
  /** State rows changed since the last commit (kind \0 key). */
  dirty: Set<string>;
};

export const emptyState = (): ChainState => ({ pools: new Map(), tokens: new Map(), balances: new Map(), holderAt: new Map(), dirty: new Set() });

export const POOL = 'pool';
export const TOKEN = 'token';
export const BALANCE = 'balance';
/** The state's row kinds, as the store keeps them. */
export const STATE_KINDS = [POOL, TOKEN, BALANCE] as const;

function poolBody(p: Pool): string {
  const state =
    p.state === null
      ? null
      : p.state.kind === 'v2'
        ? { kind: 'v2', r0: String(p.state.reserve0), r1: String(p.state.reserve1) }
        : { kind: 'v3', s: String(p.state.sqrtPriceX96) };
  return JSON.stringify({ ...p, state, balances: p.balances === null ? null : p.balances.map(String) });
}

function readPool(body: string): Pool {
  const v = JSON.parse(body) as Omit<Pool, 'state' | 'balances'> & {
    state: { kind: 'v2'; r0: string; r1: string } | { kind: 'v3'; s: string } | null;
    balances: [string, string] | null;
  };
  const state: PoolState | null =
    v.state === null
      ? null
      : v.state.kind === 'v2'
        ? { kind: 'v2', reserve0: BigInt(v.state.r0), reserve1: BigInt(v.state.r1) }
        : { kind: 'v3', sqrtPriceX96: BigInt(v.state.s) };
  return { ...v, state, balances: v.balances === null ? null : [BigInt(v.balances[0]), BigInt(v.balances[1])] };
}

export const markPool = (s: ChainState, address: string) => s.dirty.add(`${POOL}\u0000${address}`);
export const markToken = (s: ChainState, address: string) => s.dirty.add(`${TOKEN}\u0000${address}`);
export const markBalance = (s: ChainState, token: string, owner: string) => s.dirty.add(`${BALANCE}\u0000${token}/${owner}`);

/** The rows of every changed piece of state (a zero balance is deleted); clears the marks. */
export function dirtyRows(s: ChainState): StateRow[] {
  const out: StateRow[] = [];
  for (const d of s.dirty) {
    const [kind, key] = d.split('\u0000') as [string, string];
    if (kind === POOL) out.push({ kind, key, body: poolBody(s.pools.get(key)!) });
    else if (kind === TOKEN) out.push({ kind, key, body: JSON.stringify(s.tokens.get(key)!) });
    else {
      const [token, owner] = key.split('/') as [string, string];
      const v = s.balances.get(token)?.get(owner) ?? 0n;
      const at = s.holderAt.get(token)?.get(owner);
      // `raw@time`: a reorg restores the holder's amount and updatedAt from this row alone.
      out.push({ kind, key, body: v === 0n ? null : at === undefined ? String(v) : `${v}@${at}` });
    }
  }
  s.dirty.clear();
  return out;
}

/** The state rows of every kind: kind -> key -> body. */
export type StateRows = Map<string, Map<string, string>>;

/** Every state row the store holds for `chain`. */
export async function loadRows(repo: IndexerRepo, chain: string): Promise<StateRows> {
  const rows: StateRows = new Map();
  for (const kind of STATE_KINDS) rows.set(kind, await repo.state(chain, kind));
  return rows;
}

/** The state those rows describe. */
export function stateOf(rows: StateRows): ChainState {
  const s = emptyState();
  for (const [key, body] of rows.get(POOL) ?? []) s.pools.set(key, readPool(body));
  for (const [key, body] of rows.get(TOKEN) ?? []) s.tokens.set(key, JSON.parse(body) as Token);
  for (const [key, body] of rows.get(BALANCE) ?? []) {
    const [token, owner] = key.split('/') as [string, string];
    const [raw, at] = body.split('@') as [string, string | undefined];
    let m = s.balances.get(token);
    if (m === undefined) s.balances.set(token, (m = new Map()));
    m.set(owner, BigInt(raw));
    if (at !== undefined) {
      let t = s.holderAt.get(token);
      if (t === undefined) s.holderAt.set(token, (t = new Map()));
      t.set(owner, Number(at));
    }
  }
  return s;
}

/** The state as the store holds it for `chain`. */
export async function loadState(repo: IndexerRepo, chain: string): Promise<ChainState> {
  return stateOf(await loadRows(repo, chain));
}
