/**
 * The benchmark's indexer pass outside the chain itself: its flags (bench/args.ts) and how its
 * figure is judged and printed (bench/indexer.ts). The pass proper runs in `npm run bench`.
 */
import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/args.js';
import { formatIndexer, indexerMisses, type IndexerFigure } from '../../bench/indexer.js';

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
});
