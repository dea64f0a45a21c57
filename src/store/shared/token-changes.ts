/**
 * How long the token change log is (docs/api.md, Discovery): each ingest transaction appends the
 * tokens it touched, and every engine prunes the log to the newest entries on the same schedule.
 */

/** Entries kept: a reader that fell further behind rebuilds instead. */
export const TOKEN_CHANGES_KEEP = 200_000;
/** Prune once every this many ingest transactions. */
export const TOKEN_CHANGES_PRUNE_EVERY = 100;
