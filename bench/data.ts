/**
 * The benchmark's data set: a deterministic market (the demo generator with one hot token) sized
 * to a requested number of trades, bulk-loaded through the real ingest path in big transactions,
 * and cached as a store file under bench/.data/ keyed by its parameters and by the code that
 * shapes a store (migrations, ingest, hooks), so reruns skip generation.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../src/store/sqlite/db.js';
import { createServices } from '../src/services/index.js';
import { createMetaRepo } from '../src/store/sqlite/meta-repo.js';
import { demoRecords, demoTokens, type DemoOptions, type DemoToken } from '../src/domain/demo-data.js';
import type { NumberedRecord } from '../src/services/ingest.js';
import { projectRoot } from '../src/paths.js';

/** What the caller asks for. */
export type DataSpec = {
  /** Trades wanted in total (the set holds at least this many). */
  trades: number;
  tokens: number;
  days: number;
  seed: number;
  /** Unix seconds: the newest trade is at or before it; the server's clock starts here. */
  anchor: number;
};

/** The generator's parameters that give a spec's size and a hot token with half the trades. */
export type DataPlan = DataSpec & { tradesPerTokenPerDay: number; hotShare: number };

export type DataStats = {
  trades: number;
  hotTrades: number;
  hotTrades24h: number;
  tokens: number;
  markets: number;
  holders: number;
  hot: string;
  bytes: number;
};

/** Share of all trades the hot token should hold. */
export const HOT_SHARE = 0.5;
const META_KEY = 'bench_data';
const CHUNK = 5000;

export const demoOptions = (plan: DataPlan): DemoOptions => ({
  tokens: plan.tokens,
  days: plan.days,
  seed: plan.seed,
  until: plan.anchor,
  tradesPerTokenPerDay: plan.tradesPerTokenPerDay,
  hotShare: plan.hotShare,
});

/** Counts the trades a generator run makes: all, and the hot (first) token's. */
export function countTrades(opts: DemoOptions): { total: number; hot: number } {
  const hotAddress = demoTokens(opts)[0]?.address;
  let total = 0;
  let hot = 0;
  for (const r of demoRecords(opts)) {
    if (r.type !== 'trade') continue;
    total++;
    if (r.token === hotAddress) hot++;
  }
  return { total, hot };
}

/**
 * Finds generator parameters for a spec. The generator spreads trades by popularity and gives
 * young tokens shorter lives, so the hot share and the trades per token per day are solved from
 * dry runs (at a reduced scale for big sets: the counts are linear in the rate).
 */
export function planData(spec: DataSpec): DataPlan {
  const scale = Math.min(1, 200_000 / spec.trades);
  const base = { tokens: spec.tokens, days: spec.days, seed: spec.seed, until: spec.anchor };
  const rate0 = (spec.trades * scale) / (spec.days * spec.tokens);
  if (spec.tokens < 2) return { ...spec, tradesPerTokenPerDay: spec.trades / spec.days, hotShare: HOT_SHARE };
  // With hotShare h the hot token's weight is h/(1-h) times the others' sum; the others lose
  // some trades to their shorter lives, so solve h for an actual share of HOT_SHARE.
  const first = countTrades({ ...base, tradesPerTokenPerDay: rate0, hotShare: HOT_SHARE });
  const othersPerHot = (first.total - first.hot) / first.hot;
  const want = HOT_SHARE / (1 - HOT_SHARE);
  const ratio = othersPerHot * want;
  const hotShare = ratio / (1 + ratio);
  const second = countTrades({ ...base, tradesPerTokenPerDay: rate0, hotShare });
  // A little over, so rounding per token never leaves the set short.
  const tradesPerTokenPerDay = (rate0 * (spec.trades * scale + spec.tokens)) / second.total / scale;
  return { ...spec, tradesPerTokenPerDay, hotShare };
}

/** A hash of the source that decides what a generated store holds. */
export function codeFingerprint(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|sql)$/.test(name)) hash.update(name).update(readFileSync(path));
    }
  };
  for (const dir of ['src/store', 'src/services', 'src/domain', 'bench/data.ts']) {
    const path = join(projectRoot, dir);
    if (!existsSync(path)) continue;
    if (statSync(path).isDirectory()) walk(path);
    else hash.update(dir).update(readFileSync(path));
  }
  return hash.digest('hex').slice(0, 12);
}

export const storeFileName = (plan: DataPlan, fingerprint: string): string =>
  `store-t${plan.trades}-k${plan.tokens}-d${plan.days}-s${plan.seed}-a${plan.anchor}-${fingerprint}.db`;

/** The hot token of a plan (the generator's first token). */
export function hotToken(plan: DataPlan): DemoToken {
  return demoTokens(plan)[0]!;
}

/** Writes a plan's records through services.ingest.write in transactions of CHUNK records. */
export function buildStore(path: string, plan: DataPlan, onProgress?: (trades: number) => void): DataStats {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  const store = openStore(path);
  try {
    const clock = { now: () => plan.anchor * 1000 };
    const services = createServices({ store, clock });
    let chunk: NumberedRecord[] = [];
    let line = 0;
    let trades = 0;
    for (const record of demoRecords(demoOptions(plan))) {
      line++;
      if (record.type === 'trade') trades++;
      chunk.push({ line, record });
      if (chunk.length >= CHUNK) {
        services.ingest.write(chunk);
        chunk = [];
        onProgress?.(trades);
      }
    }
    if (chunk.length > 0) services.ingest.write(chunk);
    const stats = measure(store.db, plan);
    createMetaRepo(store.db).set(META_KEY, JSON.stringify({ plan, stats }));
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    return stats;
  } finally {
    store.close();
  }
}

function measure(db: ReturnType<typeof openStore>['db'], plan: DataPlan): DataStats {
  const hot = hotToken(plan).address;
  const count = (sql: string, ...args: unknown[]) =>
    db
      .prepare(sql)
      .pluck()
      .get(...args) as number;
  const hotId = count('SELECT id FROM tokens WHERE address = ?', hot);
  return {
    trades: count('SELECT count(*) FROM trades'),
    hotTrades: count('SELECT count(*) FROM trades WHERE token_id = ?', hotId),
    hotTrades24h: count('SELECT count(*) FROM trades WHERE token_id = ? AND block_time > ?', hotId, plan.anchor - 86400),
    tokens: count('SELECT count(*) FROM tokens'),
    markets: count('SELECT count(*) FROM markets'),
    holders: count('SELECT count(*) FROM holders'),
    hot,
    bytes: 0,
  };
}

/** Reads the stats a generated store recorded, or null when it is not a complete bench store. */
export function readStats(path: string): DataStats | null {
  if (!existsSync(path)) return null;
  const store = openStore(path, { migrate: false });
  try {
    const raw = createMetaRepo(store.db).get(META_KEY);
    return raw === undefined ? null : (JSON.parse(raw) as { stats: DataStats }).stats;
  } catch {
    return null;
  } finally {
    store.close();
  }
}

/**
 * The cached store for a plan under `dir`, generated when missing (into a temporary file renamed
 * at the end, so an interrupted run leaves no half-built store behind).
 */
export function ensureStore(
  dir: string,
  plan: DataPlan,
  opts: { regenerate?: boolean; onProgress?: (trades: number) => void } = {},
): { path: string; stats: DataStats; generatedMs: number | null } {
  mkdirSync(dir, { recursive: true });
  const fingerprint = codeFingerprint();
  const path = join(dir, storeFileName(plan, fingerprint));
  // Stores made by older code are never used again; they are big, so they go.
  for (const name of readdirSync(dir)) {
    if (/^store-.*\.db(\.tmp)?(-wal|-shm)?$/.test(name) && !name.includes(`-${fingerprint}.db`)) rmSync(join(dir, name), { force: true });
  }
  if (!opts.regenerate) {
    const stats = readStats(path);
    if (stats !== null) return { path, stats: { ...stats, bytes: statSync(path).size }, generatedMs: null };
  }
  const t0 = Date.now();
  const tmp = `${path}.tmp`;
  const stats = buildStore(tmp, plan, opts.onProgress);
  for (const suffix of ['-wal', '-shm']) rmSync(tmp + suffix, { force: true });
  renameSync(tmp, path);
  return { path, stats: { ...stats, bytes: statSync(path).size }, generatedMs: Date.now() - t0 };
}

/** A fresh working copy of a cached store (each server run starts from the same state). */
export function copyStore(from: string, to: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(to + suffix, { force: true });
  copyFileSync(from, to);
}
