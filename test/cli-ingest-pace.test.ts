/**
 * How `cli ingest` paces its SQLite transactions (docs/api.md, Concurrent writers): in
 * transactions of 250 records with pauses while another connection has the store open (a server
 * beside it), in transactions of 5,000 when nothing else had the store open as it began (a
 * backfill). The progress lines on stderr show each transaction's end.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { ALONE_CLI_BATCH, CLI_SLICE } from '../src/cli-ingest.js';
import { openStore } from '../src/store/sqlite/db.js';
import { aToken, aTrade, ndjson, withMarket } from './helpers/builders.js';

let dir: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-pace-'));
  db = join(dir, 'test.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function ingest(file: string) {
  let out = '';
  let err = '';
  const code = await main(['ingest', file, '--json'], {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
    stdin: Readable.from(['']),
    env: { DATABASE_PATH: db },
  });
  return { code, doc: JSON.parse(out) as unknown, progress: err.trim().split('\n') };
}

/** A file of a token, its market and `trades` trades: 2 + trades records. */
function aFile(trades: number): string {
  const tok = aToken();
  const file = join(dir, 'big.ndjson');
  writeFileSync(
    file,
    ndjson([...withMarket(tok), ...Array.from({ length: trades }, (_, i) => aTrade(tok.address, { signature: `pace${i}`, blockTime: 1_700_000_000 + i }))]),
  );
  return file;
}

const tradeCount = () => {
  const s = openStore(db);
  try {
    return s.db.prepare('SELECT count(*) FROM trades').pluck().get();
  } finally {
    s.close();
  }
};

describe('cli ingest on SQLite', () => {
  it('writes a file into a store no other process has open in transactions of 5,000 records', async () => {
    expect(ALONE_CLI_BATCH).toBe(5000);
    const file = aFile(12_000);
    const r = await ingest(file);
    expect(r.code).toBe(0);
    expect(r.doc).toEqual({ accepted: 12_002, duplicates: 0 });
    expect(r.progress).toEqual([`${file}: 5000/12002 records written`, `${file}: 10000/12002 records written`, `${file}: 12002/12002 records written`]);
    expect(tradeCount()).toBe(12_000);
  });

  it('writes in transactions of 250 while another connection has the store open', async () => {
    expect(CLI_SLICE).toBe(250);
    const server = openStore(db);
    try {
      const file = aFile(1000);
      const r = await ingest(file);
      expect(r.code).toBe(0);
      expect(r.doc).toEqual({ accepted: 1002, duplicates: 0 });
      expect(r.progress).toEqual([250, 500, 750, 1000, 1002].map((n) => `${file}: ${n}/1002 records written`));
      expect(server.db.prepare('SELECT count(*) FROM trades').pluck().get()).toBe(1000);
    } finally {
      server.close();
    }
  });
});
