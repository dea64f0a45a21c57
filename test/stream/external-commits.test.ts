/**
 * Commits of another process reach the stream's subscribers on SQLite, seen by the hub's periodic
 * check of the store (PRAGMA data_version, src/store/db.ts). SQLite only: on PostgreSQL they
 * arrive as notices on the bus (test/engines/pg-server.test.ts, pg-two-instances.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, startLive, type Live } from './support.js';
import { addToken } from '../udf/support.js';
import { aTrade } from '../helpers/builders.js';
import { openStore } from '../../src/store/db.js';
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
