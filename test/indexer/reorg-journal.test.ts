/**
 * The pure rules of following a reorg (src/indexer/evm/reorg.ts): the common ancestor of the kept
 * blocks and the node's chain, the batch to roll back from, and the Retraction built from the
 * undo journal (trades, markets and tokens the orphaned batches added; tokens, markets and
 * holders as they were before them).
 */
import { describe, expect, it } from 'vitest';
import { applyUndo, buildRetraction, findAncestor, rollbackStart } from '../../src/indexer/evm/reorg.js';
import {
  dirtyRows,
  emptyState,
  markBalance,
  markPool,
  markToken,
  stateOf,
  type ChainState,
  type Pool,
  type StateRows,
  type Token,
} from '../../src/indexer/evm/state.js';
import type { StateRow } from '../../src/store/sqlite/indexer-repo.js';
import type { BlockHeader } from '../../src/indexer/evm/node.js';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const USDC = '0x00000000000000000000000000000000000000c3';
const P = '0x00000000000000000000000000000000000000d4';
const Q = '0x00000000000000000000000000000000000000e5';
const W1 = '0x0000000000000000000000000000000000000111';
const W2 = '0x0000000000000000000000000000000000000222';

const token = (address: string, symbol: string, over: Partial<Token> = {}): Token => ({
  address,
  decimals: 18,
  symbol,
  name: `${symbol} token`,
  stored: true,
  createdAt: 1000,
  deployBlock: 1,
  priceUsd: 2,
  totalSupply: 100,
  circulatingSupply: 90,
  ...over,
});

const pool = (address: string, base: string, over: Partial<Pool> = {}): Pool => ({
  address,
  dex: 'uniswap-v2',
  protocol: 'uniswap-v2',
  token0: base,
  token1: USDC,
  createdBlock: 5,
  createdAt: 1000,
  market: true,
  skipped: null,
  baseIs0: true,
  state: { kind: 'v2', reserve0: 10n, reserve1: 20n },
  balances: null,
  liquidityUsd: 50,
  ...over,
});

/** The store's rows of a state (every piece of it marked). */
function rowsOf(s: ChainState): StateRows {
  for (const k of s.pools.keys()) markPool(s, k);
  for (const k of s.tokens.keys()) markToken(s, k);
  for (const [t, owners] of s.balances) for (const o of owners.keys()) markBalance(s, t, o);
  const out: StateRows = new Map([
    ['pool', new Map()],
    ['token', new Map()],
    ['balance', new Map()],
  ]);
  for (const r of dirtyRows(s)) if (r.body !== null) out.get(r.kind)!.set(r.key, r.body);
  return out;
}

function setBalance(s: ChainState, t: string, owner: string, raw: bigint, at: number): void {
  if (!s.balances.has(t)) s.balances.set(t, new Map());
  if (!s.holderAt.has(t)) s.holderAt.set(t, new Map());
  s.balances.get(t)!.set(owner, raw);
  s.holderAt.get(t)!.set(owner, at);
}

describe('rollbackStart', () => {
  const batches = [
    { first: 1, last: 10 },
    { first: 11, last: 11 },
    { first: 12, last: 12 },
    { first: 13, last: 13 },
  ];

  it('answers the block after the ancestor when it starts a batch', () => {
    expect([rollbackStart(batches, 11, 13), rollbackStart(batches, 10, 13), rollbackStart(batches, 12, 13)]).toEqual([12, 11, 13]);
  });

  it('answers the start of the batch holding the block after the ancestor', () => {
    expect([rollbackStart(batches, 5, 13), rollbackStart(batches, 0, 13)]).toEqual([1, 1]);
  });

  it('answers null when the journal does not reach back to the ancestor', () => {
    expect(rollbackStart(batches.slice(2), 5, 13)).toBeNull();
  });

  it('answers null when the journal has a gap or does not end at the position', () => {
    expect(rollbackStart([batches[0]!, batches[2]!, batches[3]!], 5, 13)).toBeNull();
    expect(rollbackStart(batches, 11, 14)).toBeNull();
  });
});

describe('findAncestor', () => {
  const kept = [10, 11, 12].map((n) => ({ number: n, hash: `0xold${n}`, parentHash: `0xold${n - 1}` }));
  const node =
    (hashes: Record<number, string>, parentOf10 = '0xold9') =>
    async (n: number): Promise<BlockHeader> => ({ number: n, hash: hashes[n]!, parentHash: n === 10 ? parentOf10 : (hashes[n - 1] ?? ''), timestamp: 0 });

  it('answers the newest kept block the node still has', async () => {
    expect(await findAncestor(kept, 12, node({ 10: '0xold10', 11: '0xnew11', 12: '0xnew12' }))).toBe(10);
    expect(await findAncestor(kept, 12, node({ 10: '0xold10', 11: '0xold11', 12: '0xnew12' }))).toBe(11);
  });

  it("answers the oldest kept block's parent when only that still matches", async () => {
    expect(await findAncestor(kept, 12, node({ 10: '0xnew10', 11: '0xnew11', 12: '0xnew12' }))).toBe(9);
  });

  it('answers null when the reorg is deeper than the kept blocks', async () => {
    expect(await findAncestor(kept, 12, node({ 10: '0xnew10', 11: '0xnew11', 12: '0xnew12' }, '0xnew9'))).toBeNull();
  });

  it('takes kept blocks above the head as orphaned (the node went back to a shorter branch)', async () => {
    const asked: number[] = [];
    const header = node({ 10: '0xold10', 11: '0xnew11' });
    expect(await findAncestor(kept, 11, (n) => (asked.push(n), header(n)))).toBe(10);
    expect(asked).toEqual([11, 10]);
  });
});

describe('buildRetraction', () => {
  // Before the orphaned batches: token A with a market P and a holder W1.
  const before = emptyState();
  before.tokens.set(A, token(A, 'AAA'));
  before.tokens.set(USDC, token(USDC, 'USDC', { stored: false, decimals: 6 }));
  before.pools.set(P, pool(P, A));
  setBalance(before, A, W1, 5n * 10n ** 18n, 1000);
  const beforeRows = rowsOf(before);

  // After them: A's supply and price moved, P's liquidity, W1's balance; W2 holds A; token B and its market Q are new.
  const after = emptyState();
  after.tokens.set(A, token(A, 'AAA', { totalSupply: 110, circulatingSupply: 100, priceUsd: 3 }));
  after.tokens.set(USDC, token(USDC, 'USDC', { stored: false, decimals: 6 }));
  after.tokens.set(B, token(B, 'BBB'));
  after.pools.set(P, pool(P, A, { liquidityUsd: 70 }));
  after.pools.set(Q, pool(Q, B));
  setBalance(after, A, W1, 7n * 10n ** 18n, 2000);
  setBalance(after, A, W2, 10n ** 18n, 2000);
  setBalance(after, B, W1, 10n ** 18n, 2000);
  const afterRows = rowsOf(after);

  const body = (rows: StateRows, kind: string, key: string): string | null => rows.get(kind)?.get(key) ?? null;
  const undo: StateRow[] = [
    ['token', A],
    ['token', B],
    ['pool', P],
    ['pool', Q],
    ['balance', `${A}/${W1}`],
    ['balance', `${A}/${W2}`],
    ['balance', `${B}/${W1}`],
  ].map(([kind, key]) => ({ kind: kind!, key: key!, body: body(beforeRows, kind!, key!) }));
  const journal = {
    undo,
    added: [
      { what: 'market' as const, key: Q },
      { what: 'token' as const, key: B },
      { what: 'trade' as const, key: '0xaaa:3' },
      { what: 'trade' as const, key: '0xbbb:0' },
    ],
  };

  it('puts the journal back on the state rows: the state as it was before the orphaned blocks', () => {
    const restored = stateOf(applyUndo(afterRows, undo));
    expect(restored).toEqual(stateOf(beforeRows));
  });

  it("removes the orphaned blocks' trades, markets and tokens and writes back what they changed", () => {
    const { retraction, restore } = buildRetraction(afterRows, journal);
    expect(retraction).toEqual({
      trades: [
        { signature: '0xaaa', index: 3 },
        { signature: '0xbbb', index: 0 },
      ],
      markets: [Q],
      tokens: [B],
      records: [
        {
          type: 'token',
          address: A,
          symbol: 'AAA',
          name: 'AAA token',
          decimals: 18,
          totalSupply: 100,
          circulatingSupply: 90,
          createdAt: 1000,
          logoUri: null,
        },
        { type: 'market', address: P, token: A, quoteAddress: USDC, quoteSymbol: 'USDC', dex: 'uniswap-v2', liquidityUsd: 50, createdAt: 1000 },
        { type: 'holder', token: A, owner: W1, amount: 5, updatedAt: 1000 },
        { type: 'holder', token: A, owner: W2, amount: 0, updatedAt: 0 },
      ],
    });
    expect(restore).toEqual(undo);
  });

  it('removes nothing and writes nothing back for an empty journal', () => {
    expect(buildRetraction(afterRows, { undo: [], added: [] })).toEqual({ retraction: { trades: [], markets: [], tokens: [], records: [] }, restore: [] });
  });
});
