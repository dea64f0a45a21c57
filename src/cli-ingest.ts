/**
 * `cli ingest FILE...` (docs/operations.md, Command-line tool): NDJSON files (or stdin) written
 * through the ingest path beside a running server. Each file is validated whole before anything of
 * it is written. On SQLite it is then written in short transactions with pauses, so the server
 * keeps its turns at the write lock, or, when no other process had the store open as the CLI
 * began (a backfill), in transactions of 5,000 records; on PostgreSQL, where writers do not take
 * turns at one lock, in transactions of 5,000 records (a file of up to 5,000 records is one
 * transaction).
 */
import { createReadStream, createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Services } from './services/index.js';
import type { Chains } from './domain/chains.js';
import { addNames, noNames, type LineError, type NamedAddresses, type NumberedRecord } from './services/ingest.js';
import type { CommandContext, Output } from './cli-commands.js';
import { engineFor } from './open-store.js';

/** Reads a file's lines as numbered JSON values; a line that is not JSON is reported. */
async function* numberedLines(path: string): AsyncGenerator<{ line: number; value: unknown } | LineError> {
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let line = 0;
  for await (const text of rl) {
    line++;
    const t = text.trim();
    if (t === '') continue;
    try {
      yield { line, value: JSON.parse(t) };
    } catch {
      yield { line, error: 'not valid JSON' };
    }
  }
}

/**
 * Records per CLI write transaction, so one holds the write lock at most about 50 ms (250 took
 * 17-53 ms under load), and a pause after each, longer than a waiting writer's poll interval
 * (SQLite has no queue of waiters), so a server beside the CLI gets its turn (docs/api.md,
 * Concurrent writers).
 */
export const CLI_SLICE = 250;
const CLI_PAUSE_MS = 20;
/** The CLI waits this long for a lock (a server may hold it for a large HTTP batch). */
const CLI_BUSY_TIMEOUT_MS = 120_000;

/**
 * Records per SQLite transaction of a CLI that found no other process with the store open (a
 * backfill into a store no server has open): the 50 ms turns above exist for a server beside
 * the CLI, and cost a backfill most of its time (a pause and a commit every 250 records). The
 * pause after each stays, so a server started meanwhile still gets its turns, each after at most
 * one such transaction (docs/api.md, Concurrent writers).
 */
export const ALONE_CLI_BATCH = 5000;

/**
 * Records per PostgreSQL transaction of the CLI: a file of up to this many is one transaction
 * (docs/operations.md, Many instances), and a longer one is written in transactions this long.
 */
export const PG_CLI_BATCH = 5000;

/** How the CLI writes on its store's engine. */
type Pace = { batch: number; pauseMs: number };

/** The token and market addresses a file's records name (read only where the engine looks them up first: PostgreSQL). */
async function namedIn(path: string, chains: Chains): Promise<NamedAddresses> {
  const out = noNames();
  for await (const item of numberedLines(path)) if (!('error' in item)) addNames(out, item.value, chains);
  return out;
}

/** One file is one batch: validated whole in a first pass, then written in transactions. */
async function ingestFile(services: Services, path: string, label: string, ctx: CommandContext, pace: Pace) {
  let names: Promise<NamedAddresses> | null = null;
  const named = () => (names ??= namedIn(path, services.chains));
  const validator = await services.ingest.validatorFor(named);
  let count = 0;
  for await (const item of numberedLines(path)) {
    count++;
    if ('error' in item) validator.reject(item.line, item.error);
    else validator.check(item.line, item.value);
  }
  if (validator.invalid > 0) {
    for (const e of validator.errors) ctx.stderr(`${label}: line ${e.line}: ${e.error}\n`);
    throw ctx.fail.command(`${label}: ${validator.invalid} invalid record(s); nothing of it was written`);
  }
  // Second pass: every record is known valid; tokens the file defines are written before use.
  const again = await services.ingest.validatorFor(named);
  let chunk: NumberedRecord[] = [];
  let accepted = 0;
  let duplicates = 0;
  let written = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    if (written > 0 && pace.pauseMs > 0) await sleep(pace.pauseMs);
    const r = await services.ingest.write(chunk);
    accepted += r.accepted;
    duplicates += r.duplicates;
    written += chunk.length;
    chunk = [];
    ctx.stderr(`${label}: ${written}/${count} records written\n`);
  };
  for await (const item of numberedLines(path)) {
    if ('error' in item) continue;
    const record = again.check(item.line, item.value);
    if (record === null) {
      // Only possible if the store changed between the passes (another process).
      await flush();
      throw ctx.fail.command(`${label}: line ${item.line}: ${again.errors.at(-1)?.error ?? 'invalid'}; records before it were written`);
    }
    chunk.push({ line: item.line, record });
    if (chunk.length >= pace.batch) await flush();
  }
  await flush();
  return { accepted, duplicates };
}

/**
 * Whether no other process has the store file open as the CLI begins (a new file counts): asked
 * before the CLI opens it, since its own connection would count too. False on an engine without
 * the check (PostgreSQL) and when the check itself fails.
 */
function aloneOnStore(ctx: CommandContext): boolean {
  // Any failure here (a bad setting, an unreadable file) answers "not alone"; opening the store
  // then reports it as before.
  try {
    if (ctx.databaseUrl() !== null) return false;
    const path = ctx.databasePath();
    if (path === ':memory:' || !existsSync(path)) return true;
    return engineFor({ databaseUrl: null }).inUse?.(path) === false;
  } catch {
    return false;
  }
}

/** Ingests every file named (`-` is stdin) in order; a file that fails stops the rest. */
export async function ingestFiles(ctx: CommandContext): Promise<Output> {
  const files = ctx.positionals;
  if (files.length === 0) throw ctx.fail.usage('ingest needs at least one FILE (- for stdin)');
  const alone = aloneOnStore(ctx);
  const result = await ctx.withStore(async (store, sv) => {
    let pace: Pace = { batch: PG_CLI_BATCH, pauseMs: 0 };
    // An engine with a busy timeout (SQLite's write lock) waits longer, and ingests in paced
    // slices: short ones beside another process, long ones when the CLI has the store alone.
    const { setBusyTimeout } = sv.engine;
    if (setBusyTimeout !== undefined) {
      setBusyTimeout(store, CLI_BUSY_TIMEOUT_MS);
      pace = { batch: alone ? ALONE_CLI_BATCH : CLI_SLICE, pauseMs: CLI_PAUSE_MS };
    }
    let accepted = 0;
    let duplicates = 0;
    for (const file of files) {
      let path = file;
      let tmp: string | null = null;
      if (file === '-') {
        tmp = mkdtempSync(join(tmpdir(), 'ingest-'));
        path = join(tmp, 'stdin.ndjson');
        const ws = createWriteStream(path);
        ctx.stdin.pipe(ws);
        await finished(ws);
      }
      try {
        const r = await ingestFile(sv, path, file === '-' ? 'stdin' : file, ctx, pace);
        accepted += r.accepted;
        duplicates += r.duplicates;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw ctx.fail.command(`${file}: no such file`);
        throw err;
      } finally {
        if (tmp) rmSync(tmp, { recursive: true, force: true });
      }
    }
    return { accepted, duplicates };
  });
  return { doc: result, human: `accepted ${result.accepted}, duplicates ${result.duplicates}` };
}
