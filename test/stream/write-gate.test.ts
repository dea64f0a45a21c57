/**
 * On SQLite a sliced ingest transaction stays open on the store's one connection while the event
 * loop runs, and that connection sees its uncommitted rows: a stream message sent meanwhile is
 * held (the socket paused) until the commit or rollback, so no replay carries a row rolled back
 * (src/stream/hub.ts, onMessage). SQLite only: PostgreSQL's readers use other connections and see
 * only commits, so its write gate (`settled()`) is always null.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client, settle, startLive, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';

const T0 = 1_700_000_000;
let live: Live | undefined;
afterEach(async () => {
  await live?.stop();
  live = undefined;
});

describe('a write transaction open on SQLite', () => {
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
