/** The viewers pass's pieces: hot tokens get most viewers, and a short run against the real app. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { CEILING_PATHS, driveViewers, viewerTokens, viewersServed, type ViewersFigure } from '../../bench/viewers.js';
import { startViewersCeiling } from '../../bench/viewers-ceiling.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { addToken, addTrades } from '../udf/support.js';

let t: TestApp | undefined;
let server: Server | undefined;
afterEach(() => {
  server?.close();
  t?.close();
});

describe('viewers pass', () => {
  it('gives the token of rank r a share of viewers in 1/(r+1), hot first', () => {
    const picks = viewerTokens(1000, 4);
    const counts = [0, 1, 2, 3].map((r) => picks.filter((p) => p === r).length);
    // Weights 1, 1/2, 1/3, 1/4 of 25/12: 480, 240, 160, 120.
    expect(counts).toEqual([480, 240, 160, 120]);
  });

  it('opens every chart with /udf/symbols and a countback-300 history, all answered', async () => {
    t = makeTestApp();
    const a = addToken(t, { symbol: 'AAA' });
    const b = addToken(t, { symbol: 'BBB' });
    addTrades(t, a.address, [[1_699_999_000, 1]]);
    addTrades(t, b.address, [[1_699_999_000, 2]]);
    server = await new Promise<Server>((resolve) => {
      const s = t!.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const f = await driveViewers({ base, pid: process.pid, tokens: [a.address, b.address], viewers: 20, seconds: 1, serverNow: () => t!.clock.seconds() });
    // Phases spread over the 10-s period; a run shorter than it ends before anyone's first poll.
    expect(f.requests).toBe(40);
    expect(f.failed).toBe(0);
    // One miss per token, then every open of the same token shares its entry; no poll came.
    expect(f.chartHitPercent).toBe(90);
    expect(f.pollHitPercent).toBeNull();
    // Each viewer's run ends at its first poll, 10 s after its open: about 20 s in all.
  }, 40_000);

  it('drives the same viewers against the ceiling, which answers each request with the bytes it was given', async () => {
    const open = JSON.stringify({ s: 'ok', t: Array.from({ length: 300 }, (_, i) => 1_700_000_000 + 60 * i) });
    const ceiling = await startViewersCeiling({
      symbols: { json: '{"name":"AAA"}', headerBytes: 300 },
      open: { json: open, headerBytes: 300 },
      poll: { json: '{"s":"ok","t":[1]}', headerBytes: 300 },
    });
    try {
      const poll = await fetch(ceiling.base + CEILING_PATHS.poll('x', 1));
      expect(await poll.text()).toBe('{"s":"ok","t":[1]}');
      const chart = await fetch(ceiling.base + CEILING_PATHS.open('x', 1), { headers: { 'accept-encoding': 'gzip, deflate, br' } });
      // Sent as brotli (made once); fetch decodes it.
      expect(chart.headers.get('content-encoding')).toBe('br');
      expect(await chart.text()).toBe(open);
      const f = await driveViewers({
        base: ceiling.base,
        pid: ceiling.pid,
        tokens: ['a', 'b'],
        viewers: 20,
        seconds: 1,
        serverNow: () => 1_700_000_000,
        paths: CEILING_PATHS,
      });
      expect(f.requests).toBe(40);
      expect(f.failed).toBe(0);
    } finally {
      await ceiling.stop();
    }
  }, 40_000);

  it('counts as served only the largest viewer count with p99 under 100 ms and no failures', () => {
    const fig = (viewers: number, p99Ms: number, failed = 0): ViewersFigure => ({
      viewers,
      seconds: 10,
      requests: 1,
      failed,
      p50Ms: 1,
      p99Ms,
      cpuMicrosPerViewerSecond: 1,
      chartHitPercent: null,
      pollHitPercent: null,
    });
    expect(viewersServed([fig(500, 20), fig(2000, 99.9), fig(4000, 150)])).toBe(2000);
    expect(viewersServed([fig(500, 20), fig(2000, 50, 1)])).toBe(500);
    expect(viewersServed([fig(500, 100)])).toBeNull();
  });
});
