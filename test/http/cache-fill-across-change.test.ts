/**
 * Caches filled by reads that await (the storage boundary, src/store/port/repos.ts): a change that lands
 * while a fill's reads are in flight drops that fill's answer too, so no read that begins after
 * the change is answered from before it (docs/architecture.md, Reads through the storage boundary).
 * Each test holds a real read open on a gate, makes the change meanwhile, then lets it finish.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { addToken } from '../udf/support.js';
import { withResolveCache } from '../../src/read/resolve-cache.js';
import { createHistoryCache, type SeriesSource } from '../../src/read/history-cache.js';
import { parseResolution } from '../../src/domain/resolution.js';

let t: TestApp;
afterEach(() => t?.close());

/** A minute's start, so each trade below opens a bar of its own. */
const NOW = 1_700_000_040;

/** A gate a read waits on until `open()`. */
function gate() {
  let open!: () => void;
  const shut = new Promise<void>((resolve) => (open = resolve));
  return { shut, open };
}

describe('the response cache', () => {
  it('answers a fill that began before a change with what it read, and recomputes for the next read', async () => {
    t = makeTestApp();
    const cache = t.app.deps.cache;
    const g = gate();
    const first = cache.through({ token: 7 }, 'k', async () => {
      await g.shut;
      return 'before';
    });
    t.store.notifyChange({ tokens: new Set([7]) });
    g.open();
    expect(await first).toBe('before');
    expect(await cache.through({ token: 7 }, 'k', async () => 'after')).toBe('after');
    // Kept now: the next read is a hit.
    expect(await cache.through({ token: 7 }, 'k', async () => 'again')).toBe('after');
  });

  it('drops a fill of every token on any token change, and keeps one whose token did not change', async () => {
    t = makeTestApp();
    const cache = t.app.deps.cache;
    const g = gate();
    const all = cache.through('tokens', 'list', async () => (await g.shut, 'before'));
    const other = cache.through({ token: 8 }, 'k', async () => (await g.shut, 'kept'));
    t.store.notifyChange({ tokens: new Set([7]) });
    g.open();
    await Promise.all([all, other]);
    expect(await cache.through('tokens', 'list', async () => 'after')).toBe('after');
    expect(await cache.through({ token: 8 }, 'k', async () => 'recomputed')).toBe('kept');
  });

  it('computes concurrent misses of one answer once', async () => {
    t = makeTestApp();
    const cache = t.app.deps.cache;
    let computes = 0;
    const g = gate();
    const compute = async () => {
      computes++;
      await g.shut;
      return { n: computes };
    };
    const answers = [cache.json({ token: 1 }, 'k', compute), cache.json({ token: 1 }, 'k', compute)];
    g.open();
    const [a, b] = await Promise.all(answers);
    expect(computes).toBe(1);
    expect(a).toBe(b);
  });

  it('stores an answer under the stamp taken before its reads: a change after the stamp drops it', async () => {
    t = makeTestApp();
    const cache = t.app.deps.cache;
    const stamp = cache.stamp({ token: 3 });
    t.store.notifyChange({ tokens: new Set([3]) });
    await cache.json(stamp, 'k', async () => 'read before');
    expect((await cache.json({ token: 3 }, 'k', async () => 'read after')).json).toBe('"read after"');
  });
});

describe('the symbol resolve cache', () => {
  it('does not keep a name resolved across a change, and keeps it once resolved without one', async () => {
    t = makeTestApp();
    addToken(t, { symbol: 'RES' });
    const real = t.services.repos.symbols;
    let reads = 0;
    let hold: Promise<void> | null = null;
    // The real resolve, answered only once the gate opens (what a PostgreSQL round trip allows).
    const slow = {
      resolve: async (name: string) => {
        reads++;
        const found = await real.resolve(name);
        if (hold !== null) await hold;
        return found;
      },
    };
    const symbols = withResolveCache(slow, t.store);
    const g = gate();
    hold = g.shut;
    const first = symbols.resolve('RES');
    addToken(t, { symbol: 'OTHER' });
    g.open();
    expect((await first)?.token.symbol).toBe('RES');
    hold = null;
    await symbols.resolve('RES');
    expect(reads).toBe(2);
    await symbols.resolve('RES');
    expect(reads).toBe(2);
  });
});

describe('the history series', () => {
  it('reads a series again when a trade lands while it is being read, so the answer has the trade', async () => {
    t = makeTestApp();
    const token = aToken({ symbol: 'HIS' });
    t.ingest([...withMarket(token), aTrade(token.address, { blockTime: NOW - 120, priceUsd: 1 }), aTrade(token.address, { blockTime: NOW - 60, priceUsd: 2 })]);
    const tokenId = (await t.services.repos.tokens.byAddress(token.address))!.id;
    const history = createHistoryCache({ cache: t.app.deps.cache, config: t.config, store: t.store, services: t.services });
    const res = parseResolution('1')!;
    const candles = t.services.repos.candles;
    let reads = 0;
    let hold: Promise<void> | null = null;
    // Reads the store at once, then waits: the answer it gives is from before anything that lands meanwhile.
    const source: SeriesSource = {
      read: async (q) => {
        reads++;
        const bars = await candles.readBars(tokenId, res, q);
        if (hold !== null) await hold;
        return bars;
      },
      newestBefore: (before) => candles.newestBarBefore(tokenId, res, before),
    };
    const q = { mode: 'countback' as const, to: NOW + 60, countback: 10 };
    const g = gate();
    hold = g.shut;
    const pending = history.answer(tokenId, 'usd', res, source, q);
    await Promise.resolve();
    t.ingest([aTrade(token.address, { blockTime: NOW, priceUsd: 3 })]);
    hold = null;
    g.open();
    const answer = await (await pending).compute();
    expect(answer.bars.map((b) => [b.t, b.c])).toEqual([
      [NOW - 120, 1],
      [NOW - 60, 2],
      [NOW, 3],
    ]);
    expect(reads).toBe(2);
  });

  it('answers from the store, and keeps nothing, for a series dropped while it was read', async () => {
    t = makeTestApp();
    const token = aToken({ symbol: 'DRP' });
    t.ingest([...withMarket(token), aTrade(token.address, { blockTime: NOW - 60, priceUsd: 5 })]);
    const tokenId = (await t.services.repos.tokens.byAddress(token.address))!.id;
    const history = createHistoryCache({ cache: t.app.deps.cache, config: t.config, store: t.store, services: t.services });
    const res = parseResolution('1')!;
    const candles = t.services.repos.candles;
    const g = gate();
    const source: SeriesSource = {
      read: async (q) => {
        const bars = await candles.readBars(tokenId, res, q);
        await g.shut;
        return bars;
      },
      newestBefore: (before) => candles.newestBarBefore(tokenId, res, before),
    };
    const pending = history.answer(tokenId, 'usd', res, source, { mode: 'countback', to: NOW + 60, countback: 10 });
    await Promise.resolve();
    // A change of unknown extent (another process wrote): every series goes.
    t.store.notifyChange({ tokens: 'all' });
    g.open();
    const answer = await (await pending).compute();
    expect(answer.bars.map((b) => [b.t, b.c])).toEqual([[NOW - 60, 5]]);
    expect(history.stats()).toEqual({ series: 0, bars: 0 });
  });
});
