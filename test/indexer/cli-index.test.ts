/**
 * `cli index --config F [--until N] [--json]` (docs/indexer.md, Running it): a bad file is exit 2
 * with one line naming the field; with --until the chain is indexed to that block, the JSON
 * summary printed and the store holds the trades (read back through a second run that adds none).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { buildScenario, type Scenario } from '../helpers/chain/scenario.js';

async function cli(args: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    stdin: Readable.from([]),
    env: { LOG_LEVEL: 'silent', ...env },
  });
  return { code, stdout, stderr };
}

describe('cli index', () => {
  let dir: string;
  let s: Scenario;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-index-'));
    env = { DATABASE_PATH: join(dir, 'store.db'), CHAIN: 'devnet' };
    s = await buildScenario({ chain: 'devnet' });
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const file = (value: unknown) => {
    const path = join(dir, `indexer-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
    return path;
  };

  it('refuses a bad file with exit 2 and one line naming the field', async () => {
    const bad = await cli(['index', '--config', file({ chains: [{ ...s.config, maxBlockRange: 0 }] })], env);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toMatch(/^error: --config \S+: chains\[0\]\.maxBlockRange must be from 1 to 1000000 \(cli --help lists the commands\)\n$/);
    expect((await cli(['index', '--config', file('{not json')], env)).code).toBe(2);
    expect((await cli(['index', '--config', join(dir, 'missing.json')], env)).stderr).toMatch(/cannot be read: ENOENT/);
    expect((await cli(['index'], env)).stderr).toBe('error: --config is required (cli --help lists the commands)\n');
    expect((await cli(['index', '--config', file({ chains: [s.config] }), '--until', 'x'], env)).code).toBe(2);
    expect((await cli(['index', '--config', file({ chains: [{ ...s.config, chain: 'base' }] })], env)).stderr).toContain(
      'chains[0].chain must be one of CHAINS (devnet)',
    );
  });

  it('indexes to --until, prints the summary and exits 0; a second run adds nothing', async () => {
    const path = file({ chains: [s.config] });
    const first = await cli(['index', '--config', path, '--until', String(s.endBlock), '--json'], env);
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout) as { chains: { chain: string; toBlock: number; trades: number; reorgs: number }[] };
    expect(Object.keys(summary.chains[0]!)).toEqual(['chain', 'fromBlock', 'toBlock', 'blocks', 'trades', 'markets', 'tokens', 'reorgs']);
    expect(summary.chains[0]).toMatchObject({ chain: 'devnet', toBlock: s.endBlock, reorgs: 0 });
    const store = openStore(env.DATABASE_PATH!);
    const stored = store.db.prepare('SELECT count(*) FROM trades').pluck().get() as number;
    store.close();
    expect(stored).toBe(summary.chains[0]!.trades);
    expect(stored).toBeGreaterThan(20);

    const second = await cli(['index', '--config', path, '--until', String(s.endBlock), '--json'], env);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout).chains[0]).toMatchObject({ fromBlock: s.endBlock + 1, toBlock: s.endBlock, blocks: 0, trades: 0 });
  }, 60_000);
});
