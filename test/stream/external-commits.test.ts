/**
 * Commits of another process reach the stream's subscribers on SQLite, seen by the hub's periodic
 * check of the store (PRAGMA data_version, src/store/sqlite/db.ts): a CLI file written by a real CLI
 * child process in transactions of 250 records is one trades message per transaction, whatever
 * number of them the server sees at once; a retraction by another process reaches them too (the
 * removal log, read at the check). SQLite only: on PostgreSQL they
 * arrive as notices on the bus (test/engines/pg-server.test.ts, pg-two-instances.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, expectedMessages, settle, startLive, tradesOf, type Live } from './support.js';
import { CLI_SLICE } from '../../src/cli-ingest.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { createServices } from '../../src/services/index.js';
import { fakeClock } from '../helpers/make-test-app.js';

let live: Live | null = null;
afterEach(async () => {
  await live?.stop();
  live = null;
});

/** 20 s past a minute: minute bars start at T0 - 20. */
const T0 = 1_700_000_000;

describe('commits of another process', () => {
  it('reach the subscribers (seen by the periodic check of the store)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stream-ext-'));
    try {
      const path = join(dir, 's.db');
      live = await startLive({ store: openStore(path) });
      const token = addToken(live, { symbol: 'EXT' }).address;
      const c = await Client.open(`${live.wsBase}/v1/stream`);
      const trades = await c.request({ op: 'subscribe', channel: 'trades', token });
      const bars = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
      const cli = openStore(path);
      const services = createServices({ store: cli, clock: fakeClock() });
      const rows = [aTrade(token, { blockTime: T0 + 30, priceUsd: 4 }), aTrade(token, { blockTime: T0 + 10, priceUsd: 5 })];
      services.ingest.ingest(rows.map((value, i) => ({ line: i + 1, value })));
      cli.close();
      const got = await c.waitFor((m) => m.op === 'trades' && m.sub === trades.sub);
      expect(got.trades.map((t: { signature: string }) => t.signature)).toEqual([rows[1]!.signature, rows[0]!.signature]);
      const bar = await c.waitFor((m) => m.op === 'bar' && m.sub === bars.sub);
      expect(bar).toEqual({ op: 'bar', sub: bars.sub, bar: { t: T0 - 20, o: 5, h: 5, l: 4, c: 4, v: 20 }, final: false });
      c.close();
    } finally {
      await live?.stop();
      live = null;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a retraction by another process', () => {
  it('reaches the subscribers: removed, reset reorg and the newest bar (the removal log, read at the check)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stream-ext-reorg-'));
    try {
      const path = join(dir, 's.db');
      live = await startLive({ store: openStore(path) });
      const token = addToken(live, { symbol: 'EXR' }).address;
      const kept = aTrade(token, { blockTime: T0 + 10, priceUsd: 2 });
      const orphaned = aTrade(token, { blockTime: T0 + 70, priceUsd: 3 });
      live.ingest([kept, orphaned]);
      const c = await Client.open(`${live.wsBase}/v1/stream`);
      const trades = await c.request({ op: 'subscribe', channel: 'trades', token, sinceId: 0 });
      const bars = await c.request({ op: 'subscribe', channel: 'bars', token, resolution: '1' });
      const sent = await c.waitFor((m) => m.op === 'trades' && m.sub === trades.sub);
      await c.waitFor((m) => m.op === 'bar' && m.sub === bars.sub);
      const orphanedId = sent.trades.find((t: { signature: string }) => t.signature === orphaned.signature).id as number;

      const other = openStore(path);
      const services = createServices({ store: other, clock: fakeClock() });
      expect(
        (await services.ingest.retract({ trades: [{ signature: orphaned.signature, index: orphaned.index }], markets: [], tokens: [], records: [] })).removed,
      ).toBe(1);
      other.close();

      const removed = await c.waitFor((m) => m.op === 'removed');
      expect(removed).toEqual({ op: 'removed', sub: trades.sub, trades: [{ id: orphanedId, signature: orphaned.signature, index: orphaned.index }] });
      await c.waitFor((m) => m.sub === bars.sub && m.op === 'bar' && m.bar.t === T0 - 20);
      expect(c.of(bars.sub).map((m) => (m.op === 'bar' ? [m.bar.t, m.bar.c] : [m.op, m.reason]))).toEqual([
        [T0 + 40, 3],
        ['reset', 'reorg'],
        [T0 - 20, 2],
      ]);
      c.close();
    } finally {
      await live?.stop();
      live = null;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a CLI file beside the server', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stream-tx-'));
  });
  afterEach(async () => {
    await live?.stop();
    live = null;
    rmSync(dir, { recursive: true, force: true });
  });

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
    const base = await live.services.repos.trades.maxId();
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
});
