/**
 * The benchmark's CLI ingest figure (bench/ingest-cli.ts): its flags, the two real processes (the
 * CLI's `ingest FILE` and the bare insert loop) each writing every trade of the same NDJSON file
 * into a fresh store, and the report's row. The benchmark itself is not part of the tests.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/args.js';
import { demoOptions, planData } from '../../bench/data.js';
import { BARE_BATCH, measureCliIngest, writeIngestFile, type CliCommands } from '../../bench/ingest-cli.js';
import { reportRows } from '../../bench/report.js';

const ANCHOR = 1_750_000_000;
// The sources through tsx: the bench itself runs the built files (dist/). Six processes (two
// starts, two rounds of two), each through tsx: a minute and more on a loaded machine.
const fromSource: CliCommands = {
  cli: [process.execPath, '--import', 'tsx', 'src/cli.ts'],
  bare: [process.execPath, '--import', 'tsx', 'bench/ingest-bare.ts'],
};

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('--ingest-cli-trades and --pass ingest', () => {
  it('defaults to 300,000 trades, takes 0 to leave the figure out, and runs the ingest figures alone', () => {
    expect(parseBenchArgs([])).toMatchObject({ ingestCliTrades: 300_000, ingestCliRounds: 2 });
    expect(parseBenchArgs(['--ingest-cli-rounds', '3']).ingestCliRounds).toBe(3);
    expect(() => parseBenchArgs(['--ingest-cli-rounds', '0'])).toThrow('--ingest-cli-rounds must be a whole number from 1 to 20');
    expect(parseBenchArgs(['--ingest-cli-trades', '0']).ingestCliTrades).toBe(0);
    expect(parseBenchArgs(['--pass', 'ingest']).passes).toEqual(['ingest']);
    expect(() => parseBenchArgs(['--ingest-cli-trades', '1.5'])).toThrow('--ingest-cli-trades must be a whole number from 0 to 10000000');
  });
});

describe('the CLI ingest figure', () => {
  it('writes the data set as one NDJSON file, reference records first, then the trades in time order', () => {
    dir = mkdtempSync(join(tmpdir(), 'ingest-cli-'));
    const file = join(dir, 'set.ndjson');
    const f = writeIngestFile(file, demoOptions(planData({ trades: 500, tokens: 3, days: 1, seed: 2, anchor: ANCHOR })));
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; blockTime?: number });
    expect(lines).toHaveLength(f.records);
    expect(lines.filter((r) => r.type === 'token')).toHaveLength(3);
    expect(f.tokens).toBe(3);
    const firstTrade = lines.findIndex((r) => r.type === 'trade');
    expect(lines.slice(firstTrade).every((r) => r.type === 'trade')).toBe(true);
    expect(lines.length - firstTrade).toBe(f.trades);
    const times = lines.slice(firstTrade).map((r) => r.blockTime!);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(f.bytes).toBe(readFileSync(file).length);
  });

  it('has the CLI and the bare loop each store every trade of the file, and reports both rates and their ratio', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ingest-cli-'));
    const opts = demoOptions(planData({ trades: 1500, tokens: 4, days: 2, seed: 5, anchor: ANCHOR }));
    const r = await measureCliIngest(dir, opts, fromSource, 2);
    const probe = writeIngestFile(join(dir, 'probe.ndjson'), opts);
    expect(r.trades).toBe(probe.trades);
    expect(r.records).toBe(probe.records);
    expect(r.tokens).toBe(4);
    expect(r.cliRows).toBe(r.trades);
    expect(r.bareRows).toBe(r.trades);
    expect(r.bareBatch).toBe(BARE_BATCH);
    expect(r.cliPerSecond).toBeCloseTo((r.trades / r.cliMs) * 1000, 6);
    expect(r.barePerSecond).toBeCloseTo((r.trades / r.bareMs) * 1000, 6);
    expect(r.rounds).toBe(2);
    expect(r.ratios).toHaveLength(2);
    // The median of two rounds is their mean.
    expect(r.ratio).toBeCloseTo((r.ratios[0]! + r.ratios[1]!) / 2, 9);
    expect(r.cliStartMs).toBeGreaterThan(0);
    expect(r.bareStartMs).toBeGreaterThan(0);
  }, 180_000);

  it('is a row of the report beside the in-process figure, judged against 0.5', () => {
    const base = { passes: [], ingest: null, startup: null, postgresStartup: null, limiter: null, errors: {} };
    const rate = {
      trades: 300_000,
      tokens: 50,
      records: 300_120,
      bytes: 90e6,
      cliMs: 20_000,
      bareMs: 10_000,
      cliStartMs: 400,
      bareStartMs: 150,
      cliPerSecond: 15_000,
      barePerSecond: 30_000,
      ratio: 0.5,
      cliRows: 300_000,
      bareRows: 300_000,
      bareBatch: 1000,
      rounds: 3,
      ratios: [0.45, 0.5, 0.55],
    };
    const row = reportRows({ ...base, ingestCli: rate }).find((x) => x.figure === 'ingest through the CLI vs a bare insert loop');
    expect(row).toMatchObject({ store: 'sqlite', value: '15,000 trades/s', baseline: '30,000 trades/s', ratio: '0.50', target: '>= 0.50', meets: 'yes' });
    expect(row?.note).toBe(
      '300,000 trades over 50 tokens, 90.0 MB of NDJSON, whole processes (start alone: CLI 400 ms, bare 150 ms); bare 1000 a transaction; ratio the median of 0.45, 0.50, 0.55',
    );
    expect(reportRows({ ...base, ingestCli: { ...rate, ratio: 0.13 } }).find((x) => x.figure.startsWith('ingest through the CLI'))?.meets).toBe('NO');
    expect(reportRows(base).some((x) => x.figure.startsWith('ingest through the CLI'))).toBe(false);
    expect(reportRows({ ...base, errors: { ingestCli: 'cli exited 1' } }).find((x) => x.figure.startsWith('ingest through the CLI'))?.note).toBe(
      'cli exited 1',
    );
  });
});
