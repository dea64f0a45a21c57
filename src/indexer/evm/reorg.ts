/**
 * Following a reorg (docs/indexer.md, Reorgs): the common ancestor of the kept blocks and the
 * node's chain, the batch to roll back from, and the store's Retraction built from the undo
 * journal (src/store/port/retract.ts): the trades, markets and tokens the rolled-back batches
 * added, and the holder, token and market records as they were before them. Everything here but
 * findAncestor is pure, so it is unit-tested without a node or a store.
 */
import type { IngestRecord } from '../../domain/records.js';
import { toUnits } from '../../domain/evm-swap.js';
import type { Retraction, TradeKey } from '../../store/port/retract.js';
import type { IndexedBlock, Journal, JournaledBatch, StateRow } from '../../store/port/repos.js';
import type { BlockHeader } from './node.js';
import { BALANCE, POOL, stateOf, TOKEN, type StateRows } from './state.js';
import { marketRecord, tokenRecord } from './state-records.js';

/** A reorg the indexer cannot follow: deeper than its kept blocks or its journal. Nothing was removed. */
export class DeepReorg extends Error {}

/**
 * The newest kept block the node still has (same number, same hash); the oldest kept block's
 * parent when its parent hash still matches; null when none does (a reorg deeper than the kept
 * blocks). `kept` oldest first; blocks above the node's `head` are not on its chain.
 */
export async function findAncestor(kept: readonly IndexedBlock[], head: number, header: (n: number) => Promise<BlockHeader>): Promise<number | null> {
  let oldest: BlockHeader | null = null;
  for (let i = kept.length - 1; i >= 0; i--) {
    const k = kept[i]!;
    if (k.number > head) continue;
    const h = await header(k.number);
    if (h.hash === k.hash) return k.number;
    if (i === 0) oldest = h;
  }
  const first = kept[0];
  if (first !== undefined && oldest !== null && oldest.parentHash === first.parentHash) return first.number - 1;
  return null;
}

/**
 * The first block to roll back so that the chain stands at `ancestor` or below: the start of the
 * journaled batch holding ancestor + 1 (a batch is undone whole; near the head each is one
 * block, so this is ancestor + 1 itself). Null when the journal does not reach that far back or
 * has a gap up to `position`.
 */
export function rollbackStart(batches: readonly JournaledBatch[], ancestor: number, position: number): number | null {
  let i = -1;
  for (let j = 0; j < batches.length; j++) if (batches[j]!.first <= ancestor + 1) i = j;
  if (i === -1) return null;
  for (let j = i; j < batches.length - 1; j++) if (batches[j + 1]!.first !== batches[j]!.last + 1) return null;
  if (batches.at(-1)!.last !== position) return null;
  return batches[i]!.first;
}

/** The state rows with the journal's earlier bodies put back (a null body: the row goes). */
export function applyUndo(current: StateRows, undo: readonly StateRow[]): StateRows {
  const out: StateRows = new Map([...current].map(([kind, rows]) => [kind, new Map(rows)]));
  for (const u of undo) {
    let rows = out.get(u.kind);
    if (rows === undefined) out.set(u.kind, (rows = new Map()));
    if (u.body === null) rows.delete(u.key);
    else rows.set(u.key, u.body);
  }
  return out;
}

/** A journal's trade key `signature:logIndex` as the store's TradeKey. */
function tradeKey(key: string): TradeKey {
  const at = key.lastIndexOf(':');
  return { signature: key.slice(0, at), index: Number(key.slice(at + 1)) };
}

/**
 * The Retraction that undoes the journaled batches: their trades, the markets and tokens first
 * seen in them, and the records of what they changed as it was before them (tokens' supplies,
 * markets' liquidity, holders' amounts, a holder that was none then written with amount 0 so the
 * store drops it); `restore` is the state rows to write back beside it.
 */
export function buildRetraction(current: StateRows, journal: Journal): { retraction: Retraction; restore: StateRow[] } {
  const before = stateOf(applyUndo(current, journal.undo));
  const tokensGone = new Set(journal.added.filter((a) => a.what === 'token').map((a) => a.key));
  const marketsGone = new Set(journal.added.filter((a) => a.what === 'market').map((a) => a.key));
  const tokens: IngestRecord[] = [];
  const markets: IngestRecord[] = [];
  const holders: IngestRecord[] = [];
  for (const u of journal.undo) {
    if (u.kind === TOKEN) {
      const t = before.tokens.get(u.key);
      if (t !== undefined && t.stored && !tokensGone.has(u.key)) tokens.push(tokenRecord(t));
    } else if (u.kind === POOL) {
      const p = before.pools.get(u.key);
      if (p === undefined || !p.market || marketsGone.has(u.key) || tokensGone.has(p.baseIs0 ? p.token0 : p.token1)) continue;
      markets.push(marketRecord(p, before));
    } else if (u.kind === BALANCE) {
      const [token, owner] = u.key.split('/') as [string, string];
      const t = before.tokens.get(token);
      if (tokensGone.has(token) || t === undefined || !t.stored) continue;
      const raw = before.balances.get(token)?.get(owner) ?? 0n;
      // A row from before holders' times were kept has none: 0, as the store cannot say better.
      const at = before.holderAt.get(token)?.get(owner) ?? 0;
      holders.push({ type: 'holder', token, owner, amount: raw > 0n ? toUnits(raw, t.decimals!) : 0, updatedAt: at });
    }
  }
  const byKey = (a: IngestRecord, b: IngestRecord) => recordKey(a).localeCompare(recordKey(b));
  return {
    retraction: {
      trades: journal.added.filter((a) => a.what === 'trade').map((a) => tradeKey(a.key)),
      markets: [...marketsGone].sort(),
      tokens: [...tokensGone].sort(),
      // Tokens first: markets and holders name them.
      records: [...tokens.sort(byKey), ...markets.sort(byKey), ...holders.sort(byKey)],
    },
    restore: journal.undo.map((u) => ({ ...u })),
  };
}

function recordKey(r: IngestRecord): string {
  if (r.type === 'holder') return `${r.token}/${r.owner}`;
  return r.type === 'trade' ? `${r.signature}:${r.index}` : r.address;
}
