/**
 * Operator commands of the CLI beyond the basics in cli.ts: tenants' sign-in details
 * (set-email, set-password), an online backup of the store, and removing the demo data.
 * docs/operations.md, Command-line tool; docs/operations.md, Backups; README, Demo data.
 */
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { engineFor, type AnyStore } from './open-store.js';
import type { Services } from './services/index.js';
import { removeDemo } from './services/demo.js';

/** A wrong call (exit 2) or a failed command (exit 1), raised as the caller's own error types. */
export type Fail = { usage(message: string): Error; command(message: string): Error };

export type CommandContext = {
  positionals: string[];
  opts: { tenant?: string; email?: string; force?: boolean; remove?: boolean };
  databasePath: () => string;
  /** DATABASE_URL, or null. */
  databaseUrl: () => string | null;
  stdin: NodeJS.ReadableStream;
  stderr: (s: string) => void;
  withStore: <T>(fn: (store: AnyStore, services: Services) => Promise<T>) => Promise<T>;
  fail: Fail;
};

/** What a command prints: a JSON document (--json) or a line for people. */
export type Output = { doc: unknown; human: string };

export const EMAIL = /^[^\s@]+@[^\s@]+$/;

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export async function setEmail(ctx: CommandContext): Promise<Output> {
  const tenant = ctx.opts.tenant;
  const email = ctx.opts.email;
  if (!tenant) throw ctx.fail.usage('--tenant is required');
  if (!email) throw ctx.fail.usage('--email is required');
  if (!EMAIL.test(email)) throw ctx.fail.usage('--email is not an email address');
  const t = await ctx.withStore(async (_s, sv) => sv.accounts.setEmail(tenant, email));
  return { doc: { id: t.id, email: t.email }, human: `email of ${t.id} set to ${t.email}` };
}

/**
 * One line typed at a terminal, not echoed: readline echoes what is typed to its output, which
 * here is a sink, and the terminal's own echo is off while readline holds it in raw mode.
 */
function readHiddenLine(stdin: NodeJS.ReadableStream, prompt: () => void): Promise<string> {
  const sink = new Writable({ write: (_chunk, _enc, done) => done() });
  const rl = createInterface({ input: stdin, output: sink, terminal: true });
  // Asked once the terminal is in raw mode, so nothing typed after the prompt is echoed.
  prompt();
  return new Promise((resolve, reject) => {
    rl.once('SIGINT', () => (rl.close(), reject(new Error('interrupted'))));
    rl.question('', (answer) => (rl.close(), resolve(answer)));
  });
}

/**
 * The password comes from stdin: piped (`printf %s "$PW" | cli tenants set-password ...`), read
 * to its end; at a terminal, a prompt on stderr and one hidden line, so the command never sits
 * waiting without saying why.
 */
export async function setPassword(ctx: CommandContext): Promise<Output> {
  const tenant = ctx.opts.tenant;
  if (!tenant) throw ctx.fail.usage('--tenant is required');
  let password: string;
  if ((ctx.stdin as { isTTY?: boolean }).isTTY === true) {
    password = await readHiddenLine(ctx.stdin, () => ctx.stderr(`password for tenant ${tenant} (not shown; Enter to finish): `));
    ctx.stderr('\n');
  } else {
    password = (await readAll(ctx.stdin)).replace(/\r?\n$/, '');
  }
  await ctx.withStore(async (_store, sv) => {
    // Refused (exit 1) for a tenant without an email: it could never sign in.
    await sv.accounts.setPassword(tenant, password);
    // A new password ends every dashboard session of the tenant (after it is set: a failure here
    // leaves the new password in place and the command, run again, ends them).
    await sv.sessions.destroyAll(tenant);
  });
  return { doc: { id: tenant }, human: `password set for ${tenant}` };
}

/**
 * Copies the store to FILE with SQLite's online backup (better-sqlite3 `db.backup`), page by
 * page, while the server keeps reading and writing. The copy goes to FILE.partial first and is
 * renamed when complete, so FILE is never half-written. SQLite-only, as the pragmas are: it
 * copies the file DATABASE_PATH names, and a PostgreSQL store is backed up with that engine's
 * own tools (docs/operations.md, Backups).
 */
export async function backup(ctx: CommandContext): Promise<Output> {
  const [file, ...extra] = ctx.positionals;
  if (file === undefined) throw ctx.fail.usage('backup needs a FILE to write');
  if (extra.length > 0) throw ctx.fail.usage(`backup takes one FILE (got ${ctx.positionals.length})`);
  // An online copy of a store file is the SQLite engine's alone (its `backup` capability).
  const { backup: backupStore } = engineFor({ databaseUrl: ctx.databaseUrl() });
  if (backupStore === undefined) throw ctx.fail.command('DATABASE_URL names a PostgreSQL store: back it up with pg_dump (docs/operations.md, Backups)');
  const source = ctx.databasePath();
  if (source === ':memory:') throw ctx.fail.command('DATABASE_PATH is :memory:; there is no store file to back up');
  if (!existsSync(source)) throw ctx.fail.command(`no store at ${source} (DATABASE_PATH)`);
  const target = resolve(file);
  if (target === resolve(source)) throw ctx.fail.command('FILE is the store itself');
  if (existsSync(target) && !ctx.opts.force) throw ctx.fail.command(`${file} exists; choose another name or pass --force to replace it`);
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });
  try {
    let last = -1;
    const totalPages = await backupStore(source, partial, (done, total) => {
      const pct = Math.floor((done / Math.max(1, total)) * 100);
      if (pct >= last + 10 && done < total) {
        last = pct;
        ctx.stderr(`backup: ${pct}% of ${total} pages\n`);
      }
    });
    ctx.stderr(`backup: 100% of ${totalPages} pages\n`);
    renameSync(partial, target);
    const bytes = statSync(target).size;
    return { doc: { file: target, bytes, pages: totalPages }, human: `backed up ${source} to ${target} (${bytes} bytes)` };
  } catch (err) {
    rmSync(partial, { force: true });
    throw ctx.fail.command(`backup failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Deletes every demo token with all its data; real tokens are untouched. On SQLite the space the
 * demo held then goes back to the file system (src/store/sqlite/reclaim.ts) and the answer says how much
 * (`reclaimed`); PostgreSQL's autovacuum makes it reusable (docs/operations.md).
 */
export async function removeDemoData(ctx: CommandContext): Promise<Output> {
  const { removed, reclaimed } = await ctx.withStore(async (store, sv) => {
    const removed = await removeDemo({ store, repos: sv.repos });
    // Only an engine that can give space back (SQLite's `reclaim`) does; PostgreSQL's autovacuum makes it reusable.
    const { reclaim } = sv.engine;
    if (removed.tokens === 0 || reclaim === undefined) return { removed, reclaimed: null };
    ctx.stderr('demo --remove: giving the freed space back to the file system\n');
    return { removed, reclaimed: reclaim(store) };
  });
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  return {
    doc: reclaimed === null ? removed : { ...removed, reclaimed },
    human:
      removed.tokens === 0
        ? 'no demo data in the store'
        : `removed ${removed.tokens} demo tokens, ${removed.markets} markets, ${removed.trades} trades, ${removed.holders} holders, ${removed.events} events` +
          (reclaimed === null
            ? ''
            : `\nstore file ${mb(reclaimed.fileBytesBefore)} -> ${mb(reclaimed.fileBytesAfter)}, WAL ${mb(reclaimed.walBytesBefore)} -> ${mb(reclaimed.walBytesAfter)}`),
  };
}
