/**
 * The hostile pass's pieces on a small scale: its flags, the wide store's records (valid, with the
 * trades and base prices the discovery lists need), every kind of request answering 200 on a real
 * app (so the pass measures work, not refusals), and the verdict on its targets. The pass itself
 * (`npm run bench -- --pass hostile`) is not part of the tests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/args.js';
import { formatHostile, hostileKinds, hostileMisses, type HostileRow } from '../../bench/hostile.js';
import { address, wideRecords } from '../../bench/wide-data.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';

const ANCHOR = 1_750_000_000;
let t: TestApp;
afterEach(() => t?.close());

describe('hostile pass', () => {
  it('parses --pass hostile and its flags, with defaults of 200,000 tokens of which 20,000 traded', () => {
    const d = parseBenchArgs(['--pass', 'hostile']);
    expect(d).toMatchObject({ passes: ['hostile'], wideTokens: 200_000, wideActive: 20_000, hostileSeconds: 4 });
    expect(parseBenchArgs(['--pass', 'hostile', '--wide-tokens', '0', '--hostile-seconds', '2'])).toMatchObject({
      wideTokens: 0,
      wideActive: 0,
      hostileSeconds: 2,
    });
    expect(() => parseBenchArgs(['--pass', 'hostle'])).toThrow('--pass must be cached, uncached, both, fanout, indexer, all, hostile or viewers');
    expect(() => parseBenchArgs(['--hostile-seconds', '0'])).toThrow('--hostile-seconds must be a whole number from 1 to 120');
  });

  it('generates a wide store of valid records: each active token has 11 trades in the last 24 h and a base price before it', () => {
    t = makeTestApp();
    t.clock.set(ANCHOR * 1000);
    const records = [...wideRecords({ tokens: 40, active: 6, anchor: ANCHOR })];
    expect(t.ingest(records).accepted).toBe(40 + 40 + 6 * 12);
    const perToken = t.store.db
      .prepare('SELECT sum(block_time > ?), sum(block_time <= ?) FROM trades GROUP BY token_id ORDER BY token_id')
      .raw()
      .all(ANCHOR - 86400, ANCHOR - 86400);
    expect(perToken).toEqual(Array.from({ length: 6 }, () => [11, 1]));
    expect(new Set(records.flatMap((r) => (r.type === 'token' ? [r.address] : []))).size).toBe(40);
  });

  it('sends only requests the service answers with 200, the ingest batch included', async () => {
    t = makeTestApp();
    t.clock.set(ANCHOR * 1000);
    t.ingest([...wideRecords({ tokens: 30, active: 10, anchor: ANCHOR })]);
    const { secret } = t.makeKey({ scopes: ['read', 'ingest'] });
    const kinds = hostileKinds({ hot: address('Wide', 0), anchor: ANCHOR, secret, serverNow: () => ANCHOR });
    expect(kinds.map((k) => k.id)).toEqual([
      'search',
      'trending/gainers/losers',
      'new',
      'top traders 24h/7d/30d',
      'udf search',
      'udf config',
      'history 1S countback 5000',
      'ingest 20,000 trades',
    ]);
    for (const kind of kinds) {
      for (let i = 0; i < 3; i++) {
        const r = kind.next(i);
        const req =
          r.method === 'GET'
            ? t.http.get(r.path)
            : t.http
                .post(r.path)
                .set(r.headers ?? {})
                .send(r.body);
        const res = await req;
        expect({ kind: kind.id, i, status: res.status }).toEqual({ kind: kind.id, i, status: 200 });
      }
    }
    expect(t.store.db.prepare('SELECT count(*) FROM trades').pluck().get()).toBe(10 * 12 + 3 * 20_000);
  }, 60_000);

  it('judges a row by its slowest probe (< 100 ms) and its resident memory (< 1024 MB)', () => {
    const row = (slowestProbeMs: number, maxRssMb: number): HostileRow => ({
      store: 'bench',
      kind: 'search',
      requests: 10,
      statuses: { 200: 10 },
      slowestRequestMs: 50,
      slowestProbeMs,
      probes: 100,
      maxRssMb,
    });
    const rows = [row(99.4, 1023), row(100, 10), row(5, 1024), row(Infinity, 10)];
    expect(hostileMisses(rows)).toEqual(rows.slice(1));
    const table = formatHostile(rows).split('\n');
    expect(table).toHaveLength(5);
    expect(table[1]).toMatch(/99 ms\s+-\s+-\s+-\s+1023 MB\s+ok\s*$/);
    expect(table[4]).toMatch(/failed ms\s+-\s+-\s+-\s+10 MB\s+MISS\s*$/);
    // the server's own loop delay and its main thread's time on and waiting for a core are shown
    // beside the probe, and the verdict stays the probe's
    expect(formatHostile([{ ...row(120, 10), serverLoopMaxMs: 42.4 }]).split('\n')[1]).toMatch(/120 ms\s+42 ms\s+-\s+-\s+10 MB\s+MISS\s*$/);
    expect(formatHostile([{ ...row(120, 10), serverLoopMaxMs: 42.4, serverRanMs: 812.6, serverWaitedMs: 3051.2 }]).split('\n')[1]).toMatch(
      /120 ms\s+42 ms\s+813 \/ 3051 ms\s+-\s+10 MB\s+MISS\s*$/,
    );
    // and the server's longest turn with its CPU, and the most CPU of any turn
    const turn = { longestMs: 254.2, longestCpuMs: 31.4, mostCpuMs: 35.6 };
    expect(formatHostile([{ ...row(120, 10), serverTurn: turn }]).split('\n')[1]).toMatch(/120 ms\s+-\s+-\s+254 \(31\) \/ 36 ms\s+10 MB\s+MISS\s*$/);
  });
});
