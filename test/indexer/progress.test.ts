/**
 * The backfill's progress lines (docs/indexer.md, Seeing it): blocks, trades, blocks per second
 * and time left, while backfilling; one line when caught up.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';
import { parseIndexerConfig } from '../../src/indexer/evm/config.js';
import { startIndexer } from '../../src/indexer/evm/run.js';

type Line = { msg: string; indexed?: number; head?: number; blocks?: number; trades?: number; blocksPerSecond?: number; secondsLeft?: number | null };

describe('backfill progress', () => {
  let s: Scenario;
  let t: TestApp;
  beforeAll(async () => {
    s = await buildScenario({ chain: 'devnet' });
    t = makeTestApp({ env: { CHAIN: 'devnet' } });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await s?.stop();
  });

  it('logs blocks, trades, blocks per second and time left, then that it caught up', async () => {
    const lines: Line[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n')) if (l.trim() !== '') lines.push(JSON.parse(l) as Line);
        done();
      },
    });
    const log = pino({ level: 'info' }, sink);
    // Narrow ranges and a line after every batch, so a 200-block chain makes several.
    const config = parseIndexerConfig({ chains: [{ ...s.config, maxBlockRange: 50 }] }, ['devnet']);
    const handle = startIndexer({ config, services: t.services, log, progressEveryMs: 0 });
    for (let i = 0; i < 200 && handle.status()[0]?.state !== 'following'; i++) await new Promise((r) => setTimeout(r, 50));
    await handle.stop();
    const progress = lines.filter((l) => l.msg.startsWith('backfilling devnet: '));
    expect(progress.length).toBeGreaterThanOrEqual(3);
    for (const p of progress) {
      expect(p.msg).toMatch(/^backfilling devnet: block \d+ of \d+, \d+ blocks\/s, (about \d+ s left|time left unknown)$/);
      expect(Object.keys(p)).toEqual(expect.arrayContaining(['indexed', 'head', 'blocks', 'trades', 'blocksPerSecond', 'secondsLeft']));
      expect(p.blocks).toBeGreaterThan(0);
    }
    // Every block is counted once, and every trade.
    expect(progress.reduce((n, p) => n + p.trades!, 0)).toBe(Number((await t.sql<{ n: number }>('SELECT count(*) AS n FROM trades'))[0]!.n));
    expect(lines.at(-1)?.msg).toBe(`indexer of devnet caught up at block ${s.endBlock}; following the head`);
  }, 60_000);
});
