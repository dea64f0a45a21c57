/**
 * The changes the live hub hears (docs/architecture.md, The live hub): each commit notification
 * becomes a turn that reads ahead and fans out (src/stream/change-reads.ts), unless a change
 * whose turn has not begun yet takes it in. Joined, one read, one fan-out and one write per
 * connection carry them all, which is what keeps a busy server from falling further behind.
 */
import type { ChangeReads } from './change-reads.js';
import type { Fanout } from './fanout.js';
import type { Output } from './connection.js';
import type { StreamMetrics } from './metrics.js';
import type { StreamReads } from './types.js';

/** How long after a change was heard ingests still under way may join its fan-out (see gather). */
const GATHER_MS = 25;

/** Changes heard: the tokens they touched, the newest trade id asked for at the last, when the first was heard. */
type Change = { tokens: Set<number> | 'all'; upTo: Promise<number>; seen: number };

export class ChangeTurns {
  /** The change whose turn is queued but has not begun (later changes join it), or null. */
  private next: Change | null = null;

  constructor(
    private readonly source: StreamReads,
    private readonly view: ChangeReads,
    private readonly fanout: Fanout,
    private readonly out: Output,
    private readonly metrics: StreamMetrics,
    private readonly nowMs: () => number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** A commit notification: the tokens it touched, or 'all' when not known. */
  heard(tokens: ReadonlySet<number> | 'all'): void {
    // Heard after the commit (a fault is logged; the ingest still answers). The newest trade is
    // asked for at once: on SQLite it is read now.
    const upTo = this.source.maxTradeId();
    upTo.catch(() => {});
    const waiting = this.next;
    if (waiting !== null) {
      if (tokens === 'all' || waiting.tokens === 'all') waiting.tokens = 'all';
      else for (const id of tokens) waiting.tokens.add(id);
      waiting.upTo = upTo;
      return;
    }
    const change: Change = { tokens: tokens === 'all' ? 'all' : new Set(tokens), upTo, seen: this.nowMs() };
    this.next = change;
    void this.view
      .inTurn(async () => {
        await this.gather(change);
        await this.view.fanOut(this.fanout, change.tokens, change.upTo, (run) => this.out.batch(run));
        // Observed once the messages are written: the writes are most of the delay.
        const delay = (this.nowMs() - change.seen) / 1000;
        for (let n = this.fanout.takeDelays(); n > 0; n--) this.metrics.delay(delay);
      })
      .catch((err: unknown) => this.onError(err));
  }

  /**
   * Lets ingests already under way join `change` before its fan-out: their rows could not be read
   * before their commit anyway. One turn of the event loop lets a pending ingest begin; then,
   * while one is open and for at most GATHER_MS after the change was heard, its commit is waited
   * for. Later changes stop joining once this returns.
   */
  private async gather(change: Change): Promise<void> {
    await new Promise((r) => setImmediate(r));
    for (;;) {
      const busy = this.source.settled();
      const left = GATHER_MS - (this.nowMs() - change.seen);
      if (busy === null || left <= 0) break;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([busy, new Promise<void>((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    if (this.next === change) this.next = null;
  }
}
