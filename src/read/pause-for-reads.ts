/**
 * The read side of the write gate (src/http/write-gate.ts, docs/api.md, Ingest limits): a long
 * read of a read model yields to the event loop and goes on only once no sliced write is open.
 */
import type { StoreHandle } from '../store/port/handle.js';

/**
 * A pause in a long read (a search paging through thousands of index rows): the event loop runs
 * what waits, and the read goes on only once no sliced write is open, so its next page never sees
 * half a batch.
 */
export async function pauseForReads(store: Pick<StoreHandle, 'settled'>): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  for (let p = store.settled(); p !== null; p = store.settled()) await p;
}
