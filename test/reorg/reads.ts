/**
 * Every read a retraction must leave as if the removed trades had never been ingested
 * (docs/indexer.md, Reorgs: what a retraction removes), fetched through HTTP, and their
 * comparison: record numbers (`id`, `tradeId`) and cursors differ between two stores that numbered
 * different trades, so they are left out; trade order still shows in the order of the pages.
 */
import type { TestApp } from '../helpers/make-test-app.js';

const RESOLUTIONS = ['1S', '5S', '15S', '1', '15', '60', '240', '1D', '1W', '1M'];

/** Every read of the tokens, markets and search terms named, as JSON bodies keyed by request. */
export async function readEverything(
  t: TestApp,
  q: { tokens: readonly string[]; markets: readonly string[]; terms: readonly string[]; from: number; to: number; at: readonly number[] },
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const get = async (path: string) => {
    const res = await t.http.get(path);
    out[path] = { status: res.status, body: res.body as unknown };
  };
  for (const a of q.tokens) {
    await get(`/v1/token/${a}/overview`);
    await get(`/v1/token/${a}/holders`);
    await get(`/v1/token/${a}/markets`);
    for (const window of ['1h', '24h', '30d'])
      for (const sort of ['volume', 'trades', 'net']) await get(`/v1/token/${a}/top-traders?window=${window}&sort=${sort}`);
    for (const r of RESOLUTIONS) {
      await get(`/udf/history?symbol=${a}&resolution=${r}&from=${q.from}&to=${q.to}`);
      await get(`/v1/token/${a}/candles?resolution=${r}&from=${q.from}&to=${q.to}`);
    }
    for (const m of q.markets) {
      for (const r of ['1S', '15', '1D']) {
        await get(`/v1/token/${a}/candles?resolution=${r}&from=${q.from}&to=${q.to}&market=${m}`);
        await get(`/v1/token/${a}/candles?resolution=${r}&from=${q.from}&to=${q.to}&market=${m}&currency=native`);
      }
    }
    // The whole walk, a few trades a page.
    const walk: unknown[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const res = await t.http.get(`/v1/token/${a}/trades?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`);
      walk.push(res.status);
      if (res.status !== 200) break;
      const body = res.body as { trades: unknown[]; nextCursor: string | null };
      walk.push(...body.trades);
      if (body.nextCursor === null) break;
      cursor = body.nextCursor;
    }
    out[`walk ${a}`] = walk;
  }
  for (const kind of ['trending', 'gainers', 'losers']) for (const window of ['1h', '24h']) await get(`/v1/market/${kind}?window=${window}`);
  await get('/v1/market/new');
  for (const term of q.terms) {
    await get(`/v1/search?q=${encodeURIComponent(term)}`);
    await get(`/udf/search?query=${encodeURIComponent(term)}&limit=30`);
  }
  await get(`/v1/prices?addresses=${q.tokens.join(',')}`);
  for (const time of q.at) await get(`/v1/prices/at?addresses=${q.tokens.join(',')}&time=${time}`);
  await get(`/udf/quotes?symbols=${q.tokens.join(',')}`);
  for (const a of q.tokens) await get(`/udf/symbols?symbol=${a}`);
  return out;
}

const DROPPED = new Set(['id', 'tradeId', 'nextCursor', 'requestId']);

/** `x` without record numbers and cursors. */
export function withoutNumbers(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(withoutNumbers);
  if (x !== null && typeof x === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) if (!DROPPED.has(k)) out[k] = withoutNumbers(v);
    return out;
  }
  return x;
}

/**
 * The first difference between `a` and `b` (numbers within 1e-9 relative: rollups add volumes in
 * another order than a fresh ingest), as a path and both values, or null when they agree.
 */
export function firstDifference(a: unknown, b: unknown, path = ''): string | null {
  if (typeof a === 'number' && typeof b === 'number') {
    return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)) ? null : `${path}: ${a} != ${b}`;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: length ${a.length} != ${b.length} (${JSON.stringify(a).slice(0, 400)} vs ${JSON.stringify(b).slice(0, 400)})`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d !== null) return d;
    }
    return null;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d !== null) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
}
