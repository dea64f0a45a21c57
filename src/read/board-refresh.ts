/**
 * How an in-memory board (window boards, trader boards) is brought to the clock's current second:
 * one refresh step runs at a time and callers that arrive meanwhile wait for it; while writes keep
 * coming (a CLI ingest beside the server), a caller answers after a few rounds from the last
 * complete board instead of waiting for the writes to stop.
 */

/** Refresh rounds one caller waits for while writes keep coming; then it answers. */
export const MAX_ROUNDS = 3;

export type BoardState = {
  /** The second the board's figures are exact for, or null before its first step. */
  asOf(): number | null;
  /** Whether the board is exact for `now` with nothing left to apply (it may read the store). */
  current(now: number): Promise<boolean>;
  /** Brings the board to `now` (a rebuild or an update); a step that fails is redone whole by the next. */
  step(now: number): Promise<void>;
};

/**
 * The refresh of a board: resolves with the second its figures are exact for. `clockNow` is read
 * again after each wait, so a caller that waited for another's step answers for the time it
 * answers at.
 */
export function boardRefresher(board: BoardState): (clockNow: () => number) => Promise<number> {
  let running: Promise<void> | null = null;
  return async (clockNow) => {
    for (let round = 0; ; round++) {
      if (running !== null) {
        await running;
        continue;
      }
      const now = clockNow();
      if (await board.current(now)) return now;
      // A step another caller began while this one read is waited for, not run twice.
      if (running !== null) continue;
      const asOf = board.asOf();
      if (round >= MAX_ROUNDS && asOf !== null && now >= asOf) return asOf;
      running = board.step(now).finally(() => (running = null));
      await running;
    }
  };
}
