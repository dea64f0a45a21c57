/**
 * INDEXER_CONFIG (docs/indexer.md, Running it): the server runs the indexer as one of its jobs,
 * /healthz shows it and /metrics counts it; a bad file refuses start-up naming the field.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '../../src/server.js';
import { ConfigError } from '../../src/config.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';

describe('the indexer job of the server', () => {
  let dir: string;
  let s: Scenario;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'indexer-job-'));
    s = await buildScenario({ chain: 'devnet' });
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start with a bad INDEXER_CONFIG, naming the field', async () => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, JSON.stringify({ chains: [{ ...s.config, quotes: [] }] }));
    const err = await start({
      PORT: '0',
      DATABASE_PATH: join(dir, 'bad.db'),
      DEMO_DATA: 'off',
      LOG_LEVEL: 'silent',
      CHAIN: 'devnet',
      INDEXER_CONFIG: path,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(`invalid INDEXER_CONFIG: ${path}: chains[0].quotes must name at least one quote token`);
  });

  it('indexes the chain, follows its head, and shows it on /healthz and /metrics', async () => {
    const path = join(dir, 'indexer.json');
    writeFileSync(path, JSON.stringify({ chains: [{ ...s.config, pollMs: 100 }] }));
    const running = await start({
      PORT: '0',
      DATABASE_PATH: join(dir, 'job.db'),
      DEMO_DATA: 'off',
      LOG_LEVEL: 'silent',
      CHAIN: 'devnet',
      INDEXER_CONFIG: path,
    });
    try {
      const base = `http://127.0.0.1:${(running.server.address() as AddressInfo).port}`;
      let health: { status: string; indexers?: { chain: string; head: number; indexed: number; lag: number; state: string }[] } = { status: '' };
      for (let i = 0; i < 300; i++) {
        health = (await (await fetch(`${base}/healthz`)).json()) as typeof health;
        if (health.indexers?.[0]?.state === 'following') break;
        await sleep(100);
      }
      expect(health).toMatchObject({ status: 'ok', indexers: [{ chain: 'devnet', head: s.endBlock, indexed: s.endBlock, lag: 0, state: 'following' }] });

      // A new block is followed: polled every 100 ms here.
      await s.chain.mine(1);
      for (let i = 0; i < 300; i++) {
        health = (await (await fetch(`${base}/healthz`)).json()) as typeof health;
        if (health.indexers?.[0]?.indexed === s.endBlock + 1) break;
        await sleep(100);
      }
      expect(health.indexers?.[0]).toMatchObject({ indexed: s.endBlock + 1, lag: 0 });

      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(new RegExp(`^indexer_indexed_block\\{[^}]*chain="devnet"[^}]*\\} ${s.endBlock + 1}$`, 'm'));
      expect(metrics).toMatch(/^indexer_rpc_requests_total\{[^}]*method="eth_getLogs"[^}]*outcome="ok"[^}]*\} [1-9]/m);
      const trades = Number(/^indexer_trades_total\{[^}]*chain="devnet"[^}]*\} (\d+)$/m.exec(metrics)?.[1]);
      expect(trades).toBe(Number(running.store.kind === 'sqlite' ? running.store.db.prepare('SELECT count(*) FROM trades').pluck().get() : -1));
    } finally {
      await running.stop();
    }
  }, 60_000);
});
