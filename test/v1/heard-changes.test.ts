/**
 * The read side's round trips trust the store's change notices (docs/architecture.md, Caches):
 * a token row kept by address (src/read/token-cache.ts), a current window board and a current
 * top-traders board answer without reading the store while no change was heard, and read it again
 * after one. The repos are the real ones of the test's engine, counted on the way through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { readTokenId } from './naive.js';
import { withTokenCache } from '../../src/read/token-cache.js';
import { createWindowBoard } from '../../src/read/window-board.js';
import { createTraderBoard } from '../../src/read/trader-board.js';

let t: TestApp;
afterEach(() => t?.close());

/** `repo` with each call of the named methods counted in `calls`. */
function counted<R extends object>(repo: R, calls: Record<string, number>): R {
  const out: Record<string, unknown> = { ...(repo as Record<string, unknown>) };
  for (const [name, fn] of Object.entries(repo)) {
    if (typeof fn !== 'function') continue;
    calls[name] = 0;
    out[name] = (...args: unknown[]) => {
      calls[name]!++;
      return (fn as (...a: unknown[]) => unknown).apply(repo, args);
    };
  }
  return out as R;
}

describe('reads that trust the change notices', () => {
  it('keep a token row until that token changes, never a missing one, and drop everything on a change of unknown extent', async () => {
    t = makeTestApp();
    const [a, b] = [aToken({ symbol: 'AAA' }), aToken({ symbol: 'BBB' })];
    await t.ingest([...withMarket(a), ...withMarket(b)]);
    const calls: Record<string, number> = {};
    const tokens = withTokenCache(counted(t.services.repos.tokens, calls), t.store);

    const first = await tokens.byAddress(a.address);
    expect(first?.symbol).toBe('AAA');
    expect(await tokens.byAddress(a.address)).toBe(first);
    expect(calls.byAddress).toBe(1);

    // Unknown addresses go to the store every time.
    const missing = `0x${'ab'.repeat(20)}`;
    expect(await tokens.byAddress(missing)).toBeUndefined();
    expect(await tokens.byAddress(missing)).toBeUndefined();
    expect(calls.byAddress).toBe(3);

    // Another token's trade keeps the row; the token's own trade drops it.
    await t.ingest([aTrade(b.address, { blockTime: t.clock.seconds(), priceUsd: 2 })]);
    expect(await tokens.byAddress(a.address)).toBe(first);
    expect(calls.byAddress).toBe(3);
    await t.ingest([aTrade(a.address, { blockTime: t.clock.seconds(), priceUsd: 7.5 })]);
    const after = await tokens.byAddress(a.address);
    expect(after?.priceUsd).toBe(7.5);
    expect(after?.lastTradeAt).toBe(t.clock.seconds());
    expect(calls.byAddress).toBe(4);

    // A token record's new name drops it too.
    await t.ingest([{ ...a, name: 'Renamed' }]);
    expect((await tokens.byAddress(a.address))?.name).toBe('Renamed');
    expect(calls.byAddress).toBe(5);
    expect(tokens.kept()).toBe(1);

    // Another process wrote, or the bus was down: nothing kept survives.
    t.store.notifyChange({ tokens: 'all' });
    expect(tokens.kept()).toBe(0);
    expect((await tokens.byAddress(a.address))?.name).toBe('Renamed');
    expect(calls.byAddress).toBe(6);
  });

  it('answer a current window board without reading the change log, and read it after a change is heard', async () => {
    t = makeTestApp();
    const a = aToken();
    await t.ingest([...withMarket(a), aTrade(a.address, { blockTime: t.clock.seconds() - 10, volumeUsd: 100 })]);
    const calls: Record<string, number> = {};
    const repos = { ...t.services.repos, tokenChanges: counted(t.services.repos.tokenChanges, calls) };
    const board = createWindowBoard(t.store, repos, '24h');
    const now = () => t.clock.seconds();

    await board.refresh(now);
    const afterBuild = { ...calls };
    for (let i = 0; i < 5; i++) expect(await board.refresh(now)).toBe(now());
    expect(calls).toEqual(afterBuild);
    expect(board.version()).toBe(1);

    // A change of accounts only: the log is read once, the board stays as it is.
    t.store.notifyChange({ tokens: new Set(), accounts: true });
    await board.refresh(now);
    await board.refresh(now);
    expect(calls.last).toBe(afterBuild.last! + 1);
    expect(board.version()).toBe(1);

    // A trade: the next refresh steps, and the board holds it.
    await t.ingest([aTrade(a.address, { blockTime: now() - 5, volumeUsd: 50 })]);
    await board.refresh(now);
    expect(board.version()).toBe(2);
    expect(board.get(await readTokenId(t.store, a.address))?.f.volumeUsd).toBe(150);
    const afterStep = { ...calls };
    await board.refresh(now);
    expect(calls).toEqual(afterStep);
  });

  it('answer a current top-traders board without reading the store, and read it after a change is heard', async () => {
    t = makeTestApp();
    const a = aToken();
    const wallet = `0x${'cd'.repeat(20)}`;
    await t.ingest([...withMarket(a), aTrade(a.address, { blockTime: t.clock.seconds() - 10, volumeUsd: 100, wallet })]);
    const calls: Record<string, number> = {};
    const board = createTraderBoard(t.store, counted(t.services.repos.traderBoard, calls), await readTokenId(t.store, a.address), 3600);
    const now = () => t.clock.seconds();

    await board.refresh(now);
    const afterBuild = { ...calls };
    for (let i = 0; i < 5; i++) expect(await board.refresh(now)).toBe(now());
    expect(calls).toEqual(afterBuild);

    // Something heard that did not touch the board: one check (two reads together), then none.
    t.store.notifyChange({ tokens: new Set(), accounts: true });
    await board.refresh(now);
    await board.refresh(now);
    expect(calls.maxId).toBe(afterBuild.maxId! + 1);
    expect(calls.lastRemovalSeq).toBe(afterBuild.lastRemovalSeq! + 1);
    expect(board.stats()).toMatchObject({ builds: 1, updates: 0 });

    // A trade of the token: the next refresh steps and counts it.
    await t.ingest([aTrade(a.address, { blockTime: now() - 5, volumeUsd: 50, wallet })]);
    await board.refresh(now);
    expect(board.stats()).toMatchObject({ builds: 1, updates: 1 });
    expect(board.top('volume', 1).map((x) => [x.wallet, x.volume, x.buys + x.sells])).toEqual([[wallet, 150, 2]]);
  });
});
