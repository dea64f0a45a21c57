/**
 * The benchmark's indexer pass outside the chain itself: its flags (bench/args.ts) and how its
 * figure is judged and printed (bench/indexer.ts). The pass proper runs in `npm run bench`.
 */
import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/args.js';
import { formatIndexer, indexerMisses, type IndexerFigure } from '../../bench/indexer.js';
import type { ReorgFigure } from '../../bench/reorg.js';

const figure: IndexerFigure = {
  blocks: 2400,
  swaps: 40_000,
  buildSeconds: 300,
  backfillSeconds: 100,
  backfillSwapsPerSecond: 400,
  rpcRequests: 5000,
  readsOnlySeconds: 60,
  readsOnlySwapsPerSecond: 40_000 / 60,
  ratioToReads: 0.6,
  ndjsonSeconds: 8,
  ndjsonTradesPerSecond: 5000,
  ratioToNdjson: 0.08,
  follow: { blocks: 58, p50Ms: 40, p99Ms: 300, maxMs: 300 },
  reorg: null,
};

const reorg: ReorgFigure = {
  storeTrades: 1_000_045,
  hotTrades: 500_023,
  blocks: 3,
  removed: 30,
  retractMs: 42.5,
  readsDuring: 6,
  readMaxDuringMs: 61,
  readMaxBeforeMs: 12,
  answers: { before: 2, after: 9, neither: 0, stale: 0 },
};

describe('the indexer pass', () => {
  it('runs in the default set and alone, with its chain sizes as flags', () => {
    expect(parseBenchArgs([]).passes).toEqual(['cached', 'uncached', 'fanout', 'indexer']);
    expect(parseBenchArgs(['--pass', 'indexer'])).toMatchObject({
      passes: ['indexer'],
      indexerBlocks: 2000,
      indexerSwapsPerBlock: 18,
      indexerFollowSeconds: 60,
    });
    expect(parseBenchArgs(['--indexer-blocks', '500', '--indexer-swaps-per-block', '30', '--indexer-follow-seconds', '0'])).toMatchObject({
      indexerBlocks: 500,
      indexerSwapsPerBlock: 30,
      indexerFollowSeconds: 0,
    });
    for (const bad of [
      ['--indexer-blocks', '5'],
      ['--indexer-swaps-per-block', '0'],
      ['--indexer-follow-seconds', '-1'],
    ])
      expect(() => parseBenchArgs(bad)).toThrow();
  });

  it('misses its targets below half the reads-only ceiling or at a p99 of 1.5 s, and meets them otherwise', () => {
    expect(indexerMisses(figure)).toEqual([]);
    expect(indexerMisses(null)).toEqual([]);
    expect(indexerMisses({ ...figure, ratioToReads: 0.49, follow: { blocks: 10, p50Ms: 900, p99Ms: 1500, maxMs: 1600 } })).toEqual([
      'indexer backfill 0.49 of the reads-only ceiling (target >= 0.5)',
      'indexer head-to-stream p99 1500 ms (target < 1500 ms)',
    ]);
  });

  it('prints the figures with their targets', () => {
    expect(formatIndexer(figure).split('\n')).toEqual([
      'indexer: 40,000 swaps over 2,400 blocks (built in 300 s)',
      '  backfill 400 swaps/s (100.0 s, 5000 RPC requests)',
      '  the same RPC reads with no processing 667 swaps/s: ratio 0.60 (target >= 0.5)',
      '  the same records as NDJSON 5000 trades/s: ratio 0.080',
      '  head-to-stream with wsUrl on 1 s blocks: p50 40 ms, p99 300 ms over 58 blocks (target p99 < 1500 ms)',
    ]);
  });

  it('holds the reorg measurement to no read waiting more than 100 ms and no answer between the two stores, and prints it', () => {
    expect(indexerMisses({ ...figure, reorg })).toEqual([]);
    expect(indexerMisses({ ...figure, reorg: { ...reorg, readMaxDuringMs: 101, answers: { before: 1, after: 2, neither: 1, stale: 1 } } })).toEqual([
      'reorg: a read waited 101 ms behind the retraction (target <= 100 ms)',
      'reorg: 1 overview answers were neither the store before nor after the retraction',
      'reorg: 1 overview answers begun after the retraction still showed the store before it',
    ]);
    expect(
      formatIndexer({ ...figure, reorg })
        .split('\n')
        .slice(5),
    ).toEqual([
      'reorg: 3 blocks, 30 trades of the hot token (500,023 of 1,000,045 trades) removed in 42.5 ms',
      '  reads during it: 6, the longest 61 ms (target <= 100 ms; 12 ms before it); overview answers from then on before/after/neither 2/9/0, stale 0',
    ]);
  });
});
