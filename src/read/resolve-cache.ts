/**
 * Symbol resolution from memory: every chart poll names its symbol, and resolving it in SQL cost
 * more than the cached answer it leads to (docs/operations.md, Benchmark). Resolved names are kept
 * and dropped exactly when the answer could change, on the store's change notifications:
 * - a name that is exactly a token's address (its store key, `chain:address` off the default
 *   chain: docs/chains.md, so one chain's name never finds another's token) resolves to that token whatever else changes, so it
 *   is dropped only when that token changes (its row is part of the answer);
 * - any other name (a symbol, `EXCHANGE:SYMBOL`, an address in another letter case) depends on
 *   other tokens too (the most liquid wins, a new token can make a case-insensitive match
 *   ambiguous), so it is dropped on every token change;
 * - everything goes on a change of unknown extent (another process wrote).
 * Unknown names are not kept, so random guesses cannot push real names out.
 * The repo answers a promise (either engine): a name resolved across a change is answered but not
 * kept, since it may have been read before the change.
 */
import type { StoreHandle } from '../store/port/handle.js';
import type { Async } from '../store/port/async.js';
import type { Resolved, SymbolsRepo } from '../store/port/repos.js';
import { normalizeAddress } from '../domain/address.js';

/** Names kept at most; the whole map is dropped when full (a chart's names come back at once). */
const MAX_NAMES = 10_000;

/** What a name resolves to when it is kept in memory, without a promise; undefined when it is not kept. */
export type KnownName = (name: string) => Resolved | undefined;

/**
 * `repo` with `resolve` answered from memory (the other methods are the repo's own), and `known`,
 * which answers a kept name at once: the history route's cached answer needs no promise at all.
 */
export function withResolveCache<R extends Pick<Async<SymbolsRepo>, 'resolve'>>(repo: R, store: Pick<StoreHandle, 'onChange'>): R & { known: KnownName } {
  const byAddress = new Map<string, Resolved>();
  const other = new Map<string, Resolved>();
  /** Changes seen so far: a resolve that saw one begin and end is not kept. */
  let changes = 0;

  store.onChange((change) => {
    if (change.tokens === 'all') {
      changes++;
      byAddress.clear();
      other.clear();
      return;
    }
    if (change.tokens.size === 0) return;
    changes++;
    other.clear();
    for (const [name, found] of byAddress) if (change.tokens.has(found.token.id)) byAddress.delete(name);
  });

  const known: KnownName = (name) => byAddress.get(name) ?? other.get(name);
  const resolve = async (name: string): Promise<Resolved | null> => {
    const hit = known(name);
    if (hit !== undefined) return hit;
    const before = changes;
    const found = await repo.resolve(name);
    if (found === null || changes !== before) return found;
    // A token's store key (`chain:address` off the default chain) as asked, or its address in another spelling.
    const map = name === found.token.address || normalizeAddress(name) === found.token.address ? byAddress : other;
    if (map.size >= MAX_NAMES) map.clear();
    map.set(name, found);
    return found;
  };
  return { ...repo, resolve, known };
}
