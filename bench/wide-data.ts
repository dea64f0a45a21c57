/**
 * The hostile pass's wide store (docs/operations.md, Benchmark): many tokens (default 200,000), each with one
 * market, of which some (default 20,000) traded in the last 24 h (eleven trades, plus one two days
 * earlier so they have a base price for gainers and losers). Written through the real ingest path
 * and cached under bench/.data/ like the main data set, keyed by its parameters and the code.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../src/store/sqlite/db.js';
import { createServices } from '../src/services/index.js';
import { createMetaRepo } from '../src/store/sqlite/meta-repo.js';
import type { IngestRecord } from '../src/domain/records.js';
import type { NumberedRecord } from '../src/services/ingest.js';
import { codeFingerprint } from './data.js';

export type WideSpec = { tokens: number; active: number; anchor: number };
export type WideStore = { path: string; hot: string; generatedMs: number | null };

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const META_KEY = 'bench_wide';
const CHUNK = 5000;

/** A 44-character base58 address: a readable tag padded with 1s, then `n` in base58. */
export function address(tag: string, n: number): string {
  let s = '';
  for (let k = 0; k < 10; k++, n = Math.floor(n / 58)) s = B58[n % 58] + s;
  return (tag + '1'.repeat(44)).slice(0, 34) + s;
}

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function* wideRecords(spec: WideSpec): Generator<IngestRecord> {
  const rand = rng(7);
  const word = (n: number) => Array.from({ length: n }, () => LETTERS[Math.floor(rand() * 26)]).join('');
  let sig = 0;
  for (let i = 0; i < spec.tokens; i++) {
    const token = address('Wide', i);
    const market = address('WideMkt', i);
    const symbol = word(3 + Math.floor(rand() * 3)).toUpperCase();
    const name = `${word(4 + Math.floor(rand() * 4))} ${word(3 + Math.floor(rand() * 5))}`;
    yield {
      type: 'token',
      address: token,
      symbol,
      name,
      decimals: 6,
      totalSupply: 1e9,
      circulatingSupply: 8e8,
      createdAt: spec.anchor - 90 * 86400 + i * 30,
      logoUri: null,
    };
    yield {
      type: 'market',
      address: market,
      token,
      quoteAddress: 'So11111111111111111111111111111111111111112',
      quoteSymbol: 'SOL',
      dex: 'raydium',
      liquidityUsd: Math.floor(rand() * 1_000_000),
      createdAt: spec.anchor - 90 * 86400,
    };
    if (i >= spec.active) continue;
    let price = 0.5 + rand();
    for (let k = 0; k < 12; k++) {
      const blockTime = k === 0 ? spec.anchor - 2 * 86400 : spec.anchor - 86000 + Math.floor(rand() * 85_000);
      price *= 0.8 + rand() * 0.45;
      yield {
        type: 'trade',
        token,
        market,
        signature: `wide${++sig}`,
        index: 0,
        blockTime,
        side: rand() < 0.5 ? 'buy' : 'sell',
        priceUsd: price,
        amount: 100,
        quoteAmount: 1,
        volumeUsd: Math.round(rand() * 10_000) / 100 + 0.01,
        wallet: address('WideWa', Math.floor(rand() * 50_000)),
      };
    }
  }
}

/** The cached wide store for `spec` under `dir`, generated when missing. */
export function ensureWideStore(dir: string, spec: WideSpec, onProgress?: (tokens: number) => void): WideStore {
  mkdirSync(dir, { recursive: true });
  const fingerprint = codeFingerprint();
  const name = `wide-k${spec.tokens}-a${spec.active}-t${spec.anchor}-${fingerprint}.db`;
  const path = join(dir, name);
  const hot = address('Wide', 0);
  for (const f of readdirSync(dir)) {
    if (/^wide-.*\.db(\.tmp)?(-wal|-shm)?$/.test(f) && !f.startsWith(name)) rmSync(join(dir, f), { force: true });
  }
  if (existsSync(path)) return { path, hot, generatedMs: null };
  const t0 = Date.now();
  const tmp = `${path}.tmp`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(tmp + suffix, { force: true });
  const store = openStore(tmp);
  try {
    const services = createServices({ store, clock: { now: () => spec.anchor * 1000 } });
    let chunk: NumberedRecord[] = [];
    let line = 0;
    let tokens = 0;
    for (const record of wideRecords(spec)) {
      if (record.type === 'token') tokens++;
      chunk.push({ line: ++line, record });
      if (chunk.length >= CHUNK) {
        services.ingest.write(chunk);
        chunk = [];
        onProgress?.(tokens);
      }
    }
    if (chunk.length > 0) services.ingest.write(chunk);
    createMetaRepo(store.db).set(META_KEY, JSON.stringify(spec));
    store.db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    store.close();
  }
  for (const suffix of ['-wal', '-shm']) rmSync(tmp + suffix, { force: true });
  renameSync(tmp, path);
  return { path, hot, generatedMs: Date.now() - t0 };
}
