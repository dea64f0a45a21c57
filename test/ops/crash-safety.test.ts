/**
 * Crash safety of the CLI ingest (docs/api.md, Data and ingest): SIGKILL in the middle of a large file
 * leaves whole transactions (a consistent store: candles agree with the trades written so far);
 * re-ingesting the same file completes it, every trade is stored exactly once, and the candle
 * rollups at 60 s and 1 day equal a naive aggregation of the raw trades.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/sqlite/db.js';

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'ops-crash-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TRADES = 100_000;
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const address = (tag: string, n: number): string => {
  let s = '';
  for (let i = 0; i < 10; i++, n = Math.floor(n / 58)) s = B58[n % 58] + s;
  return (tag + 'T'.repeat(44)).slice(0, 34) + s;
};

type FileTrade = { token: string; signature: string; index: number; blockTime: number; priceUsd: number; volumeUsd: number; side: string };

/** A file of 4 tokens, 8 markets and TRADES trades, out of time order, 1% repeated. */
function writeBigFile(path: string): { lines: number; unique: Map<string, FileTrade> } {
  const rnd = prng(7);
  const tokens = [0, 1, 2, 3].map((i) => address('tok', i));
  const lines: string[] = [];
  for (const [i, t] of tokens.entries()) {
    lines.push(
      JSON.stringify({
        type: 'token',
        address: t,
        symbol: `CR${i}`,
        name: `Crash ${i}`,
        decimals: 6,
        totalSupply: 1e9,
        circulatingSupply: 8e8,
        createdAt: 1_699_000_000,
        logoUri: null,
      }),
    );
    for (const m of [0, 1]) {
      lines.push(
        JSON.stringify({
          type: 'market',
          address: address('mkt', i * 2 + m),
          token: t,
          quoteAddress: 'So11111111111111111111111111111111111111112',
          quoteSymbol: 'SOL',
          dex: m ? 'orca' : 'raydium',
          liquidityUsd: 1000 * (i + 1),
          createdAt: 1_699_000_100,
        }),
      );
    }
  }
  const unique = new Map<string, FileTrade>();
  let made: string[] = [];
  for (let n = 0; n < TRADES; n++) {
    // About 1% of the lines repeat an earlier trade exactly (a duplicate in the same file).
    if (made.length > 0 && rnd() < 0.01) {
      lines.push(made[Math.floor(rnd() * made.length)]!);
      continue;
    }
    const ti = Math.floor(rnd() * tokens.length);
    const trade = {
      type: 'trade',
      token: tokens[ti]!,
      market: address('mkt', ti * 2 + (rnd() < 0.5 ? 0 : 1)),
      signature: `crash${n}`,
      index: Math.floor(rnd() * 3),
      // 10 days, many trades per second at times (ties in blockTime are ordered by id)
      blockTime: 1_700_000_000 + Math.floor(rnd() * 10 * 86400),
      side: rnd() < 0.5 ? 'buy' : 'sell',
      priceUsd: Math.round((0.5 + rnd()) * 1e6) / 1e6,
      amount: Math.round(rnd() * 1e6) / 100,
      quoteAmount: Math.round(rnd() * 1e4) / 1e4,
      volumeUsd: Math.round(rnd() * 1e6) / 100,
      wallet: address('wW', Math.floor(rnd() * 500)),
    };
    const line = JSON.stringify(trade);
    lines.push(line);
    if (made.length < 5000) made.push(line);
    else made = [line];
    unique.set(`${trade.signature}/${trade.index}`, trade);
  }
  writeFileSync(path, lines.join('\n') + '\n');
  return { lines: lines.length, unique };
}

type Candle = { o: number; h: number; l: number; c: number; v: number; n: number };

/** Candles at `res` seconds from the raw trades, in trade order (block_time, id). */
function naiveCandles(db: Db, res: number): Map<string, Candle> {
  const out = new Map<string, Candle>();
  const rows = db.prepare('SELECT token_id, block_time, price_usd, volume_usd FROM trades ORDER BY token_id, block_time, id').raw().iterate() as Iterable<
    [number, number, number, number]
  >;
  for (const [token, time, price, volume] of rows) {
    const key = `${token}/${Math.floor(time / res) * res}`;
    const c = out.get(key);
    if (c === undefined) out.set(key, { o: price, h: price, l: price, c: price, v: volume, n: 1 });
    else {
      c.h = Math.max(c.h, price);
      c.l = Math.min(c.l, price);
      c.c = price;
      c.v += volume;
      c.n++;
    }
  }
  return out;
}

/** Compares the stored rollups at `res` with the naive candles; returns the differences. */
function rollupDifferences(db: Db, res: number): string[] {
  const naive = naiveCandles(db, res);
  const stored = db.prepare('SELECT token_id, t, o, h, l, c, v, n FROM candles WHERE res = ?').all(res) as ({ token_id: number; t: number } & Candle)[];
  const diffs: string[] = [];
  if (stored.length !== naive.size) diffs.push(`res ${res}: ${stored.length} rollups, ${naive.size} naive buckets`);
  for (const s of stored) {
    const key = `${s.token_id}/${s.t}`;
    const n = naive.get(key);
    if (n === undefined) diffs.push(`res ${res} ${key}: rollup without trades`);
    else if (s.o !== n.o || s.h !== n.h || s.l !== n.l || s.c !== n.c || s.n !== n.n || Math.abs(s.v - n.v) > 1e-9 * Math.max(1, Math.abs(n.v))) {
      diffs.push(`res ${res} ${key}: stored ${JSON.stringify(s)} naive ${JSON.stringify(n)}`);
    }
    if (diffs.length > 5) break;
  }
  return diffs;
}

const cli = (args: string[], env: Record<string, string>) =>
  [process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env: { ...process.env, ...env } }] as const;

describe('crash in the middle of a CLI ingest', () => {
  it('leaves whole transactions; a re-run stores every trade exactly once with exact candles', async () => {
    const file = join(dir, 'big.ndjson');
    const dbPath = join(dir, 'crash.db');
    const { lines, unique } = writeBigFile(file);
    const env = { DATABASE_PATH: dbPath, LOG_LEVEL: 'silent' };

    // 1. Start the ingest and SIGKILL it as soon as it reports its first committed chunk.
    const [cmd, args, opts] = cli(['ingest', file], env);
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!killed && /records written/.test(stderr)) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    expect(exit.signal, stderr.slice(0, 2000)).toBe('SIGKILL');

    // 2. What the crash left: some trades, not all, and a store that is consistent with itself.
    let db = new Database(dbPath);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const partial = db.prepare('SELECT count(*) FROM trades').pluck().get() as number;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(unique.size);
    expect(rollupDifferences(db, 60)).toEqual([]);
    expect(rollupDifferences(db, 86400)).toEqual([]);
    db.close();

    // 3. The same file again, to the end.
    const [cmd2, args2, opts2] = cli(['ingest', file, '--json'], env);
    const rerun = spawnSync(cmd2, args2, { ...opts2, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(rerun.stderr).not.toMatch(/error/i);
    expect(rerun.status).toBe(0);
    const result = JSON.parse(rerun.stdout) as { accepted: number; duplicates: number };
    // Each line is accepted or a duplicate; the trades written before the crash are duplicates now.
    expect(result.accepted + result.duplicates).toBe(lines);
    expect(result.duplicates).toBeGreaterThanOrEqual(partial + (TRADES - unique.size));

    // 4. Every trade exactly once, as in the file; candles equal the naive aggregation.
    db = new Database(dbPath);
    expect(db.prepare('SELECT count(*) FROM trades').pluck().get()).toBe(unique.size);
    const stored = db
      .prepare('SELECT t.address, r.signature, r.idx, r.block_time, r.price_usd, r.volume_usd, r.is_buy FROM trades r JOIN tokens t ON t.id = r.token_id')
      .raw()
      .all() as [string, string, number, number, number, number, number][];
    const mismatches = stored.filter(([token, sig, idx, time, price, volume, isBuy]) => {
      const f = unique.get(`${sig}/${idx}`);
      return (
        f === undefined || f.token !== token || f.blockTime !== time || f.priceUsd !== price || f.volumeUsd !== volume || (f.side === 'buy') !== (isBuy === 1)
      );
    });
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(rollupDifferences(db, 60)).toEqual([]);
    expect(rollupDifferences(db, 86400)).toEqual([]);
    // Each token's last price is its last trade in trade order.
    const lastPrices = db
      .prepare(`SELECT t.price_usd = (SELECT price_usd FROM trades WHERE token_id = t.id ORDER BY block_time DESC, id DESC LIMIT 1) FROM tokens t`)
      .pluck()
      .all();
    expect(lastPrices).toEqual([1, 1, 1, 1]);
    db.close();
  }, 300_000);
});
