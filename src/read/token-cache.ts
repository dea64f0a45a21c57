/**
 * Token rows by store key from memory: every /v1/token/... request looks its token up by address
 * first, and on PostgreSQL that lookup was a round trip on every request, the largest part of the
 * cached routes' own time under a live ingest (docs/operations.md, Benchmark, issue 33). Rows are
 * kept and dropped exactly when the row could change, on the store's change notifications, as the
 * symbol names of resolve-cache.ts are:
 * - a row is dropped when its token changes (a trade moves its price and last trade time, a
 *   token record its metadata, a retraction or a removal its existence);
 * - everything goes on a change of unknown extent (another process wrote, or the bus to the other
 *   instances is down: then no row is served from memory at all, src/coord/wiring.ts).
 * Unknown addresses are not kept (a 404 is looked up every time), so random guesses cannot push
 * real rows out; a row read across a change is answered but not kept, since it may have been read
 * before the change.
 */
import type { StoreHandle } from '../store/port/handle.js';
import type { Async } from '../store/port/async.js';
import type { TokenRow, TokensRepo } from '../store/port/repos.js';

/** Rows kept at most; the whole map is dropped when full (a client's tokens come back at once). */
export const MAX_TOKEN_ROWS = 10_000;

/** `repo` with `byAddress` answered from memory while the row cannot have changed. */
export function withTokenCache(repo: Async<TokensRepo>, store: Pick<StoreHandle, 'onChange'>): Async<TokensRepo> & { kept(): number } {
  const byAddress = new Map<string, TokenRow>();
  /** The key each kept row is under (a token has one store key), so a change drops only its own rows. */
  const keyOf = new Map<number, string>();
  /** Changes seen so far: a lookup that saw one begin and end is not kept. */
  let changes = 0;

  store.onChange((change) => {
    if (change.tokens === 'all') {
      changes++;
      byAddress.clear();
      keyOf.clear();
      return;
    }
    if (change.tokens.size === 0) return;
    changes++;
    for (const id of change.tokens) {
      const key = keyOf.get(id);
      if (key === undefined) continue;
      keyOf.delete(id);
      byAddress.delete(key);
    }
  });

  return {
    ...repo,
    async byAddress(address: string): Promise<TokenRow | undefined> {
      const hit = byAddress.get(address);
      if (hit !== undefined) return hit;
      const before = changes;
      const row = await repo.byAddress(address);
      if (row === undefined || changes !== before) return row;
      if (byAddress.size >= MAX_TOKEN_ROWS) {
        byAddress.clear();
        keyOf.clear();
      }
      byAddress.set(address, row);
      keyOf.set(row.id, address);
      return row;
    },
    kept: () => byAddress.size,
  };
}
