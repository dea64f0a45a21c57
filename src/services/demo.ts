/**
 * Demo data: loading the deterministic demo set into the store (through the ingest path) and the
 * simulated feed that keeps adding trades while the store holds only demo data.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { Store } from '../store/db.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { demoRecords, type DemoOptions } from '../domain/demo-data.js';
import type { IngestRecord } from '../domain/records.js';
import { createMetaRepo } from '../store/meta-repo.js';
import type { Ingest, NumberedRecord } from './ingest.js';
import { metricsFor } from './metrics.js';

export type DemoCounts = { tokens: number; markets: number; holders: number; trades: number; seed: number; until: number; days: number };

export const DEMO_DEFAULTS = { tokens: 20, days: 30, seed: 42 } as const;

/** Loads the demo set; records it in meta (seed, anchor) so the same data can be made again. */
export function loadDemo(
  deps: { store: Store; ingest: Ingest },
  opts: DemoOptions,
  onProgress?: (written: number) => void,
): DemoCounts {
  const counts = { tokens: 0, markets: 0, holders: 0, trades: 0 };
  let chunk: NumberedRecord[] = [];
  let line = 0;
  let duplicates = 0;
  const flush = () => {
    if (chunk.length === 0) return;
    duplicates += deps.ingest.write(chunk, { demo: true }).duplicates;
    chunk = [];
    onProgress?.(line);
  };
  for (const record of demoRecords(opts)) {
    line++;
    counts[`${record.type}s` as keyof typeof counts]++;
    chunk.push({ line, record });
    if (chunk.length >= 5000) flush();
  }
  flush();
  createMetaRepo(deps.store.db).set('demo', JSON.stringify({ seed: opts.seed, until: opts.until, days: opts.days, tokens: opts.tokens }));
  // Only trades can be duplicates (the other records are upserts): count what was loaded.
  return { ...counts, trades: counts.trades - duplicates, seed: opts.seed, until: opts.until, days: opts.days };
}

/** True while the store holds tokens and every one of them is a demo token. */
export function storeHoldsOnlyDemo(store: Store): boolean {
  const row = store.db
    .prepare('SELECT count(*) AS n, coalesce(sum(is_demo = 0), 0) AS real FROM tokens')
    .get() as { n: number; real: number };
  return row.n > 0 && row.real === 0;
}

/**
 * Every `intervalMs`, while the store holds only demo data, ingests a few trades at the current
 * time through the normal ingest path, so charts, quotes and events move. Returns a stop function.
 */
export function startDemoFeed(deps: { store: Store; ingest: Ingest; clock: Clock }, intervalMs = 1000): () => void {
  const { db } = deps.store;
  const demoTokens = db.prepare(`
    SELECT t.address, t.price_usd AS price, m.address AS market
    FROM tokens t JOIN markets m ON m.token_id = t.id AND m.id = (SELECT min(id) FROM markets WHERE token_id = t.id)
    WHERE t.is_demo = 1 AND t.price_usd IS NOT NULL`);
  const someWallet = db.prepare('SELECT owner FROM holders WHERE token_id = (SELECT id FROM tokens WHERE address = ?) ORDER BY owner LIMIT 1 OFFSET ?').pluck();

  const tick = () => {
    if (!storeHoldsOnlyDemo(deps.store)) return;
    const tokens = demoTokens.all() as { address: string; price: number; market: string }[];
    if (tokens.length === 0) return;
    const now = nowSeconds(deps.clock);
    const records: NumberedRecord[] = [];
    const n = 1 + randomInt(4);
    for (let i = 0; i < n; i++) {
      const t = tokens[randomInt(Math.min(tokens.length, 8))]!;
      const price = t.price * Math.exp((Math.random() - 0.5) * 0.01);
      const volumeUsd = Math.round(Math.exp(2 + Math.random() * 6) * 100) / 100;
      const wallet = (someWallet.get(t.address, randomInt(50)) as string | undefined) ?? t.market;
      const record: IngestRecord = {
        type: 'trade', token: t.address, market: t.market, signature: `demo-${randomBytes(24).toString('hex')}`, index: 0,
        blockTime: now, side: Math.random() < 0.5 ? 'buy' : 'sell', priceUsd: price, amount: volumeUsd / price,
        quoteAmount: volumeUsd / 150, volumeUsd, wallet,
      };
      records.push({ line: i + 1, record });
    }
    metricsFor(deps.store).ingested('demo', deps.ingest.write(records));
  };

  const timer = setInterval(() => {
    try {
      tick();
    } catch {
      // The feed is decoration; a failed tick (store closing, busy) is retried next second.
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

export const defaultDemoOptions = (clock: Clock): DemoOptions => ({ ...DEMO_DEFAULTS, until: nowSeconds(clock) });
