/**
 * Trades messages follow the ingest's transactions (docs/api.md, Live stream): a CLI file beside the
 * server, written by a real CLI child process in transactions of 250 records, reaches a real
 * WebSocket client as one trades message per transaction, whatever number of them the server
 * sees at once; a large POST /v1/ingest batch, one transaction written in slices, is one message.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/db.js';
import { CLI_SLICE } from '../../src/cli-ingest.js';
import { WRITE_SLICE } from '../../src/services/ingest-batch.js';
import { Client, settle, startLive, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import type { TradeRecord } from '../../src/domain/records.js';

const T0 = 1_700_000_000;
let dir: string;
let live: Live | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stream-tx-'));
});
afterEach(async () => {
  await live?.stop();
  live = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const maxId = (l: Live) => (l.store.db.prepare('SELECT coalesce(max(id), 0) FROM trades').pluck().get() as number) ?? 0;

/** The trade ids each transaction gives token `a`: records numbered from `base + 1`, `slice` a transaction. */
function expectedMessages(trades: readonly TradeRecord[], a: string, base: number, slice: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < trades.length; i += slice) {
    const mine = trades
      .map((t, j) => ({ t, id: base + 1 + j }))
      .slice(i, i + slice)
      .filter(({ t }) => t.token === a)
      .sort((x, y) => x.t.blockTime - y.t.blockTime || x.id - y.id);
    if (mine.length > 0) out.push(mine.map((m) => m.id));
  }
  return out;
}

/** Trades of two tokens, a mostly; times swapped in pairs so (blockTime, id) order is not id order. */
function tradesOf(a: string, b: string, n: number): TradeRecord[] {
  return Array.from({ length: n }, (_, i) => aTrade(i % 7 === 3 ? b : a, { blockTime: T0 + (i ^ 1), priceUsd: 1 + (i % 10) / 10 }));
}

describe('one trades message per ingest transaction', () => {
  it('sends a CLI file written in transactions of 250 as one message per transaction, with exactly its trades', async () => {
    const dbPath = join(dir, 'shared.db');
    live = await startLive({ env: { DATABASE_PATH: dbPath }, store: openStore(dbPath) });
    const a = addToken(live, { symbol: 'TXA' }).address;
    const b = addToken(live, { symbol: 'TXB' }).address;
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token: a });

    const trades = tradesOf(a, b, 5 * CLI_SLICE + 40);
    const file = join(dir, 'trades.ndjson');
    writeFileSync(file, trades.map((t) => JSON.stringify(t)).join('\n') + '\n');
    const base = maxId(live);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'ingest', file], {
      env: { ...process.env, DATABASE_PATH: dbPath, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, stderr).toBe(0);
    expect(stderr.match(/records written/g)).toHaveLength(6);

    const expected = expectedMessages(trades, a, base, CLI_SLICE);
    const total = expected.flat().length;
    const got = () => c.of(ok.sub, 'trades').flatMap((m) => m.trades).length;
    await c.waitFor(() => got() >= total, 10_000);
    await settle();
    expect(c.of(ok.sub, 'trades').map((m) => m.trades.map((t: { id: number }) => t.id))).toEqual(expected);
    expect(expected).toHaveLength(6);
    c.close();
  }, 60_000);

  it('sends a POST /v1/ingest batch written in several slices (one transaction) as one message', async () => {
    live = await startLive();
    const a = addToken(live, { symbol: 'TXA' }).address;
    const b = addToken(live, { symbol: 'TXB' }).address;
    const key = live.makeKey({ plan: 'enterprise', scopes: ['read', 'ingest'] });
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const ok = await c.request({ op: 'subscribe', channel: 'trades', token: a });
    const trades = tradesOf(a, b, 3 * WRITE_SLICE + 10);
    const base = maxId(live);
    const res = await live.http
      .post('/v1/ingest')
      .set('x-api-key', key.secret)
      .set('Content-Type', 'application/x-ndjson')
      .send(trades.map((t) => JSON.stringify(t)).join('\n'));
    expect(res.status).toBe(200);
    const expected = expectedMessages(trades, a, base, trades.length);
    await c.waitFor((m) => m.op === 'trades');
    await settle();
    expect(c.of(ok.sub, 'trades').map((m) => m.trades.map((t: { id: number }) => t.id))).toEqual(expected);
    expect(live.store.db.prepare('SELECT last_id FROM trade_commits WHERE last_id > ?').pluck().all(base)).toEqual([base + trades.length]);
    c.close();
  });

  it('holds a message sent while a sliced ingest transaction is open until it ends: no replay carries a row rolled back', async () => {
    live = await startLive();
    const a = addToken(live, { symbol: 'TXA' }).address;
    live.ingest([aTrade(a, { blockTime: T0 }), aTrade(a, { blockTime: T0 + 1 })]);
    const committed = live.store.db.prepare('SELECT id FROM trades ORDER BY id').pluck().all() as number[];
    const c = await Client.open(`${live.wsBase}/v1/stream`);
    const db = live.store.db;
    const tokenId = db.prepare('SELECT id FROM tokens WHERE address = ?').pluck().get(a) as number;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // What a sliced ingest does between two slices: a transaction open while the loop runs.
    const tx = live.store.exclusive(async () => {
      db.exec('BEGIN IMMEDIATE');
      db.prepare(
        `INSERT INTO trades (token_id, block_time, signature, idx, is_buy, price_usd, amount, quote_amount, volume_usd, wallet, market)
         VALUES (?, ?, 'uncommitted', 0, 1, 1, 1, 1, 1, 'w', 'm')`,
      ).run(tokenId, T0 + 2);
      await gate;
      db.exec('ROLLBACK');
    });
    while (live.store.settled() === null) await new Promise((r) => setImmediate(r));
    const answered = c.request({ op: 'subscribe', channel: 'trades', token: a, sinceId: 0 });
    await settle(300);
    expect(c.messages).toEqual([]);
    release();
    await tx;
    const ok = await answered;
    const replay = await c.waitFor((m) => m.op === 'trades');
    expect(replay).toEqual({ op: 'trades', sub: ok.sub, trades: expect.any(Array) });
    expect(replay.trades.map((t: { id: number }) => t.id)).toEqual(committed);
    c.close();
  });
});
