/**
 * Ingest through the CLI, as an operator or a backfill would (issue 33): one NDJSON file (the
 * data set's tokens, markets and holders, then its trades in time order) into a fresh SQLite
 * store by `node dist/src/cli.js ingest FILE`, timed as a whole process, start included, against
 * a bare insert loop of the same file in a process of its own (bench/ingest-bare.ts: parse each
 * line, one prepared INSERT a trade into the same trades table with the same indexes). Each
 * command's start alone (the same command on an empty file into a fresh store) is reported beside.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { demoRecords, type DemoOptions } from '../src/domain/demo-data.js';
import type { IngestRecord } from '../src/domain/records.js';

/** Trades per transaction of the bare loop (the in-process figure's default `--ingest-batch`). */
export const BARE_BATCH = 1000;

export type CliIngestRate = {
  trades: number;
  tokens: number;
  /** Lines of the file (every record). */
  records: number;
  bytes: number;
  /** Whole process of `cli ingest FILE`, start included. */
  cliMs: number;
  /** Whole process of the bare loop, start included. */
  bareMs: number;
  /** The same commands on an empty file into a fresh store: the start each figure includes. */
  cliStartMs: number;
  bareStartMs: number;
  cliPerSecond: number;
  barePerSecond: number;
  ratio: number;
  /** Trades in each store afterwards (both must equal `trades`). */
  cliRows: number;
  bareRows: number;
  bareBatch: number;
  /** Rounds of bare then CLI; the times above are the medians, `ratio` the median of `ratios`. */
  rounds: number;
  /** Each round's CLI rate over its bare rate (a shared machine moves both; a pair moves together). */
  ratios: number[];
};

/** How to start each side: argv before the side's own arguments. */
export type CliCommands = { cli: string[]; bare: string[] };

/** The built commands (`npm run bench` runs from dist/). */
export function builtCommands(): CliCommands {
  return {
    cli: [process.execPath, fileURLToPath(new URL('../src/cli.js', import.meta.url))],
    bare: [process.execPath, fileURLToPath(new URL('./ingest-bare.js', import.meta.url))],
  };
}

/** Writes the data set as one NDJSON file: reference records first, then the trades in time order. */
export function writeIngestFile(path: string, opts: DemoOptions): { records: number; trades: number; tokens: number; bytes: number } {
  const reference: IngestRecord[] = [];
  const trades: IngestRecord[] = [];
  for (const r of demoRecords(opts)) (r.type === 'trade' ? trades : reference).push(r);
  trades.sort((a, b) => (a as { blockTime: number }).blockTime - (b as { blockTime: number }).blockTime);
  const text = [...reference, ...trades].map((r) => JSON.stringify(r)).join('\n') + '\n';
  writeFileSync(path, text);
  return {
    records: reference.length + trades.length,
    trades: trades.length,
    tokens: reference.filter((r) => r.type === 'token').length,
    bytes: Buffer.byteLength(text),
  };
}

const removeStore = (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
};

/** Runs argv to its end; its wall time in ms, or throws with its stderr's tail. */
function timed(argv: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    // The CLI reports every transaction on stderr: keep the tail only.
    child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code === 0) resolve({ ms, stdout });
      else reject(new Error(`${argv.slice(1).join(' ')} exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

const tradeRows = (path: string): number => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT count(*) FROM trades').pluck().get() as number;
  } finally {
    db.close();
  }
};

/** One side: `argv` on `file` into a fresh store at `store`; its wall time and the trades stored. */
async function runSide(side: 'cli' | 'bare', c: CliCommands, file: string, store: string): Promise<{ ms: number; rows: number }> {
  removeStore(store);
  try {
    const env = { ...process.env, DATABASE_PATH: store, LOG_LEVEL: 'warn' };
    const argv = side === 'cli' ? [...c.cli, 'ingest', file] : [...c.bare, file, store, String(BARE_BATCH)];
    const { ms } = await timed(argv, env);
    return { ms, rows: tradeRows(store) };
  } finally {
    removeStore(store);
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Measures both sides on one file in `dir`, `rounds` times bare then CLI, and each one's start on
 * an empty file.
 */
export async function measureCliIngest(dir: string, opts: DemoOptions, commands: CliCommands = builtCommands(), rounds = 1): Promise<CliIngestRate> {
  const file = `${dir}/ingest-cli.ndjson`;
  const empty = `${dir}/ingest-cli-empty.ndjson`;
  const store = `${dir}/ingest-cli.db`;
  try {
    const f = writeIngestFile(file, opts);
    writeFileSync(empty, '');
    const bareStart = await runSide('bare', commands, empty, store);
    const cliStart = await runSide('cli', commands, empty, store);
    const bares: number[] = [];
    const clis: number[] = [];
    const ratios: number[] = [];
    let rows = { cli: 0, bare: 0 };
    for (let i = 0; i < rounds; i++) {
      const bare = await runSide('bare', commands, file, store);
      const cli = await runSide('cli', commands, file, store);
      bares.push(bare.ms);
      clis.push(cli.ms);
      ratios.push(bare.ms / cli.ms);
      // Every round must store every trade: the figure keeps the fewest either side stored.
      rows = i === 0 ? { cli: cli.rows, bare: bare.rows } : { cli: Math.min(rows.cli, cli.rows), bare: Math.min(rows.bare, bare.rows) };
    }
    const cliMs = median(clis);
    const bareMs = median(bares);
    return {
      trades: f.trades,
      tokens: f.tokens,
      records: f.records,
      bytes: f.bytes,
      cliMs,
      bareMs,
      cliStartMs: cliStart.ms,
      bareStartMs: bareStart.ms,
      cliPerSecond: (f.trades / cliMs) * 1000,
      barePerSecond: (f.trades / bareMs) * 1000,
      ratio: median(ratios),
      cliRows: rows.cli,
      bareRows: rows.bare,
      bareBatch: BARE_BATCH,
      rounds,
      ratios,
    };
  } finally {
    rmSync(file, { force: true });
    rmSync(empty, { force: true });
  }
}
