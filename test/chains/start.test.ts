/**
 * Start-up with chains (docs/chains.md, Configuring chains): CHAINS and CHAIN disagreeing stop it;
 * the store's default chain is fixed the first time it opens (the meta row `default_chain`), a
 * later start whose default differs stops with one line, in-process and as `npm start` runs it,
 * and the CLI refuses the same way; adding chains behind the same default starts. On the engine
 * of the run: a SQLite file, or with STORE=postgres a fresh PostgreSQL database.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { start } from '../../src/server.js';
import { main } from '../../src/cli.js';
import { testEngine } from '../helpers/pg-test-store.js';
import { freshDatabase, type FreshDatabase } from '../engines/support.js';

let dir: string;
let db: FreshDatabase | undefined;
/** Where the store of the test lives, as settings. */
let storeEnv: Record<string, string>;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chains-start-'));
  if (testEngine() === 'postgres') {
    db = await freshDatabase('chains_start');
    storeEnv = { DATABASE_URL: db.url };
  } else {
    storeEnv = { DATABASE_PATH: join(dir, 's.db') };
  }
});
afterEach(async () => {
  await db?.drop();
  db = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const env = (chains: Record<string, string>) => ({ ...storeEnv, ...chains, PORT: '0', DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'silent' });

const REFUSED =
  "the store's default chain is solana (its plain addresses are on solana), but the configured default chain is base: start with CHAINS beginning with solana";

describe('CHAINS and CHAIN', () => {
  it('stop start-up when they disagree on the default chain, or name a chain badly', () => {
    const refused = (e: Record<string, string>) => {
      try {
        loadConfig({ ...e, DATABASE_PATH: ':memory:' });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('loadConfig accepted it');
    };
    expect(refused({ CHAINS: 'base,ethereum', CHAIN: 'ethereum' })).toBe(
      'invalid CHAIN (got "ethereum"): CHAIN is ethereum but CHAINS starts with base: the default chain is CHAINS\' first; set one of them',
    );
    expect(refused({ CHAINS: 'base,base' })).toBe('invalid CHAINS (got "base,base"): CHAINS names base twice');
    expect(refused({ CHAINS: 'base,Eth' })).toBe(
      'invalid CHAINS (got "base,Eth"): CHAINS names "Eth", which is not a chain name (a-z, 0-9, -; starting with a letter; at most 32)',
    );
    expect(loadConfig({ CHAINS: 'base,ethereum', CHAIN: 'base', DATABASE_PATH: ':memory:' }).chains).toEqual({
      list: ['base', 'ethereum'],
      defaultChain: 'base',
    });
    expect(loadConfig({ CHAIN: 'base', DATABASE_PATH: ':memory:' }).chains).toEqual({ list: ['base'], defaultChain: 'base' });
    expect(loadConfig({ DATABASE_PATH: ':memory:' }).chains).toEqual({ list: ['solana'], defaultChain: 'solana' });
  });
});

describe("the store's default chain", () => {
  it('is fixed at the first start: another default stops start-up, more chains behind it start', async () => {
    const first = await start(env({ CHAIN: 'solana' }));
    expect(await first.services.repos.meta.get('default_chain')).toBe('solana');
    await first.stop();

    await expect(start(env({ CHAINS: 'base,solana' }))).rejects.toThrow(new ConfigError(REFUSED));

    const more = await start(env({ CHAINS: 'solana,base' }));
    expect(more.services.chains).toEqual({ list: ['solana', 'base'], defaultChain: 'solana' });
    expect(await more.services.repos.meta.get('default_chain')).toBe('solana');
    await more.stop();
  });

  it('stops the server process with one line, and the CLI with exit 1', async () => {
    const first = await start(env({ CHAIN: 'solana' }));
    await first.stop();

    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, ...env({ CHAINS: 'base,solana' }), LOG_LEVEL: 'info' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toBe(`error: ${REFUSED}\n`);
    expect(stdout).toBe('');

    let out = '';
    let err = '';
    const cli = await main(['tenants', 'list'], {
      stdout: (s) => void (out += s),
      stderr: (s) => void (err += s),
      stdin: Readable.from(['']),
      env: { ...storeEnv, CHAINS: 'base,solana', LOG_LEVEL: 'silent' },
    });
    expect({ cli, out, err }).toEqual({ cli: 1, out: '', err: `error: ${REFUSED}\n` });
  });
});
