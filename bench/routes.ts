/**
 * The read routes the benchmark drives (docs/operations.md, Benchmark and performance), each with its targets as a share
 * of the baseline's requests/s, and the walk that finds a trades cursor half the hot token deep.
 */

export type BenchRoute = {
  id: string;
  path: string;
  /** Minimum requests/s as a share of the baseline, with caches on. */
  cachedTarget: number;
  /** Minimum share with caches off, where the contract sets one. */
  uncachedTarget: number | null;
};

/** The routes for a hot token; `deepCursor` is the cursor of the page half the token deep. */
export function benchRoutes(hot: string, anchor: number, deepCursor: string | null): BenchRoute[] {
  // `to` a week past the anchor: the newest bars, including those the live ingest adds.
  const history = (resolution: string) => `/udf/history?symbol=${hot}&resolution=${resolution}&from=${anchor - 86400}&to=${anchor + 7 * 86400}&countback=300`;
  const routes: BenchRoute[] = [
    { id: 'history 1', path: history('1'), cachedTarget: 0.7, uncachedTarget: 0.25 },
    { id: 'history 15', path: history('15'), cachedTarget: 0.7, uncachedTarget: 0.25 },
    { id: 'history 1D', path: history('1D'), cachedTarget: 0.7, uncachedTarget: 0.25 },
    // The adapter's 10-s poll: a tiny answer, so nearly all of its cost is the per-request path.
    {
      id: 'history poll',
      path: `/udf/history?symbol=${hot}&resolution=1&from=${anchor - 120}&to=${anchor + 7 * 86400}&countback=2&currencyCode=USD`,
      cachedTarget: 0.5,
      uncachedTarget: null,
    },
    { id: 'trades first page', path: `/v1/token/${hot}/trades`, cachedTarget: 0.7, uncachedTarget: null },
  ];
  if (deepCursor !== null) {
    routes.push({ id: 'trades deep page', path: `/v1/token/${hot}/trades?cursor=${deepCursor}`, cachedTarget: 0.7, uncachedTarget: null });
  }
  routes.push(
    { id: 'overview', path: `/v1/token/${hot}/overview`, cachedTarget: 0.5, uncachedTarget: 0.15 },
    { id: 'top traders 24h', path: `/v1/token/${hot}/top-traders?window=24h`, cachedTarget: 0.5, uncachedTarget: 0.15 },
    { id: 'holders', path: `/v1/token/${hot}/holders`, cachedTarget: 0.5, uncachedTarget: null },
    { id: 'markets', path: `/v1/token/${hot}/markets`, cachedTarget: 0.5, uncachedTarget: null },
    { id: 'search', path: '/v1/search?q=bo', cachedTarget: 0.5, uncachedTarget: null },
    { id: 'trending', path: '/v1/market/trending?window=24h', cachedTarget: 0.5, uncachedTarget: null },
  );
  return routes;
}

/** The routes in the groups they are measured in: the two trades pages together, the rest alone. */
export function routeGroups(routes: readonly BenchRoute[]): BenchRoute[][] {
  const trades = routes.filter((r) => r.id.startsWith('trades '));
  const groups: BenchRoute[][] = [];
  for (const r of routes) {
    if (r.id.startsWith('trades ')) {
      if (r === trades[0]) groups.push(trades);
    } else {
      groups.push([r]);
    }
  }
  return groups;
}

export type CursorWalk = { cursor: string | null; depth: number; pages: number; error: string | null };

/**
 * Walks the hot token's trades newest first, 1000 a page, until `depth` trades are behind, and
 * returns the cursor found there (a real one, issued by the server).
 */
export async function findDeepCursor(base: string, hot: string, depth: number, headers: Record<string, string>): Promise<CursorWalk> {
  let cursor: string | null = null;
  let seen = 0;
  let pages = 0;
  while (seen < depth) {
    const url: string = `${base}/v1/token/${hot}/trades?limit=1000${cursor === null ? '' : `&cursor=${cursor}`}`;
    const res = await fetch(url, { headers });
    if (res.status !== 200) return { cursor: null, depth: seen, pages, error: `${res.status} from ${url.replace(base, '')}` };
    const body = (await res.json()) as { trades?: unknown[]; nextCursor?: string | null };
    pages++;
    seen += body.trades?.length ?? 0;
    if (typeof body.nextCursor !== 'string') return { cursor: null, depth: seen, pages, error: 'the walk ended before half the trades' };
    cursor = body.nextCursor;
  }
  return { cursor, depth: seen, pages, error: null };
}
