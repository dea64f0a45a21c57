/**
 * Holder balances folded from ERC-20 `Transfer` logs and WETH9 `Deposit` / `Withdrawal` logs
 * (docs/indexer.md, Holders): raw bigint balances by owner, and which owners a block changed, so
 * the indexer writes one holder record per changed owner with the block's time. The zero address
 * mints and burns: it is never a holder.
 */

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
export const DEAD_ADDRESS = '0x000000000000000000000000000000000000dead';

export type BalanceMove =
  | { kind: 'transfer'; from: string; to: string; value: bigint }
  | { kind: 'deposit'; to: string; value: bigint }
  | { kind: 'withdrawal'; from: string; value: bigint };

/**
 * Applies moves in chain order to `balances` (mutated) and answers the owners whose balance
 * changed and whether anything was minted or burnt (the supply moved).
 */
export function foldBalances(balances: Map<string, bigint>, moves: readonly BalanceMove[]): { changed: Set<string>; supplyMoved: boolean } {
  const changed = new Set<string>();
  let supplyMoved = false;
  const add = (owner: string, delta: bigint) => {
    if (owner === ZERO_ADDRESS) {
      supplyMoved = true;
      return;
    }
    balances.set(owner, (balances.get(owner) ?? 0n) + delta);
    changed.add(owner);
  };
  for (const m of moves) {
    if (m.kind === 'transfer') {
      if (m.from === m.to) {
        // A self-transfer moves nothing, but still counts as the owner's last transfer.
        if (m.from !== ZERO_ADDRESS) changed.add(m.from);
        continue;
      }
      add(m.from, -m.value);
      add(m.to, m.value);
    } else if (m.kind === 'deposit') {
      add(m.to, m.value);
      supplyMoved = true;
    } else {
      add(m.from, -m.value);
      supplyMoved = true;
    }
  }
  return { changed, supplyMoved };
}
