/**
 * UDF /history (docs/api.md, TradingView UDF datafeed): bars ascending with every t in [from, to). With a positive
 * countback `from` is ignored and the countback newest bars before `to` come back, at most 5000:
 * the Charting Library asks for more when a user jumps far back (setVisibleRange, Go to date) and
 * a 400 there breaks the series until reload, so a larger countback is served as 5000. Without it
 * (absent or 0) the range mode needs from < to. At most 5000 bars, the newest kept. An empty
 * answer points at the newest older bar (nextTime), or has no nextTime at the start of history.
 */
import { z } from 'zod';
import { enumParam, intParam } from '../validate.js';
import { invalidParameter } from '../../errors.js';
import type { ApiRouter } from '../route.js';
import { SUPPORTED_RESOLUTIONS, parseResolution, type Resolution } from '../../domain/resolution.js';
import { barQuery, isBarQueryError, type BarAnswer, type BarQuery } from '../../domain/history-range.js';
import type { SeriesSource } from '../../read/history-cache.js';
import { adapterParams, resolveChart, symbolParam, tokenMetric, type UdfDeps } from './params.js';
import { metricBars, type ChartMetric } from '../../domain/chart-metric.js';
import { PreparedJson } from '../../read/prepared-json.js';
import { udfHistory, udfHistoryExample } from './schemas.js';

/** 10000-01-01T00:00:00Z: every representable trade time is before it. */
export const MAX_TIME_PARAM = 253402300800;

const RESOLUTIONS = [...SUPPORTED_RESOLUTIONS, 'D', 'W', 'M'] as const;

export type HistoryBody = { s: 'ok'; t: number[]; o: number[]; h: number[]; l: number[]; c: number[]; v: number[] } | { s: 'no_data'; nextTime?: number };

export function addHistoryRoute(router: ApiRouter, deps: UdfDeps): void {
  const { symbols, known, candles, marketCandles, cache, history } = deps;
  router.add(
    {
      method: 'get',
      path: '/udf/history',
      summary:
        'UDF bars (of a token in USD or in market cap, or of a pair in USD or its quote token): ascending, every t in [from, to); countback overrides from (above 5000 served as 5000); at most 5000, newest kept',
      access: 'public',
      tag: 'udf',
      query: z.object({
        symbol: symbolParam(),
        resolution: enumParam(RESOLUTIONS),
        from: intParam(0, MAX_TIME_PARAM).optional(),
        to: intParam(0, MAX_TIME_PARAM),
        countback: intParam(0, Number.MAX_SAFE_INTEGER).optional(),
        ...adapterParams,
      }),
      response: udfHistory,
      example: udfHistoryExample,
    },
    ({ query: q }) => {
      const res = parseResolution(q.resolution)!;
      const query = barQuery(q);
      if (isBarQueryError(query))
        throw invalidParameter('from', query.problem === 'required' ? 'from is required without countback' : 'from must be less than to');
      // A viewer's poll or chart open of a token's series whose answer is cached: found from
      // memory alone, without a promise (the same lookups the full path makes, in the same order).
      const metric = tokenMetric(q.currencyCode);
      const resolved = metric !== null ? known(q.symbol) : undefined;
      if (resolved !== undefined && metric !== null) {
        const tokenId = resolved.token.id;
        const stamp = cache.stamp({ token: tokenId });
        const key = history.keyNow(tokenId, `||${res.key}`, res, query);
        const hit =
          key === undefined ? undefined : cache.jsonNow<HistoryBody>(stamp, `udf-history|${metricKey(metric, resolved.token.circulatingSupply)}|${key}`);
        if (hit !== undefined) {
          history.counted(query, true);
          return hit;
        }
      }
      return answer(q, res, query);
    },
  );

  async function answer(q: { symbol: string; currencyCode: string }, res: Resolution, query: BarQuery): Promise<PreparedJson<HistoryBody>> {
    const chart = await resolveChart(symbols, q.symbol, q.currencyCode);
    const tokenId = chart.kind === 'token' ? chart.resolved.token.id : chart.pair.token.id;
    const metric = chart.kind === 'token' ? chart.metric : 'price';
    const supply = chart.kind === 'token' ? chart.resolved.token.circulatingSupply : null;
    // No circulating supply, no market cap: the chart shows its "no data" state, not an error.
    if (metric === 'mcap' && supply === null) return new PreparedJson<HistoryBody>({ s: 'no_data' });
    const pair = chart.kind === 'pair' ? { market: chart.pair.market.address, currency: chart.currency } : null;
    const source: SeriesSource =
      pair === null
        ? { read: (bq) => candles.readBars(tokenId, res, bq), newestBefore: (before) => candles.newestBarBefore(tokenId, res, before) }
        : {
            read: (bq) => marketCandles.readBars(tokenId, pair.market, pair.currency, res, bq),
            newestBefore: (before) => marketCandles.newestBarBefore(tokenId, pair.market, res, before),
          };
    // Bars depend only on the token's trades and the bars the query selects: cached until the
    // token changes, one entry for every viewer asking for the same bars (src/read/history-cache.ts).
    // The stamp comes before the series' own reads: a trade landing meanwhile drops this answer.
    const stamp = cache.stamp({ token: tokenId });
    const found = await history.answer(tokenId, `${pair?.market ?? ''}|${pair?.currency ?? ''}|${res.key}`, res, source, query);
    let miss = false;
    // The series holds price bars whatever the metric (the same bars serve both); the answer's key
    // carries the metric and the supply it was scaled by. A token record that changes the supply is
    // a change of the token, which drops the token's answers (and its resolved name) anyway.
    const body = await cache.json(stamp, `udf-history|${metricKey(metric, supply)}|${found.key}`, async () => {
      miss = true;
      const answer = await found.compute();
      return historyBody({ bars: metricBars(answer.bars, metric, supply), nextTime: answer.nextTime });
    });
    history.counted(query, !miss);
    return body;
  }
}

/** The part of an answer's cache key that says what its bars measure. */
const metricKey = (metric: ChartMetric, supply: number | null): string => (metric === 'price' ? 'price' : `mcap:${supply}`);

/** The UDF form of an answer: columns of bars, or no_data with the newest older bar's time when known. */
function historyBody(answer: BarAnswer): HistoryBody {
  const bars = answer.bars;
  if (bars.length === 0) return answer.nextTime === null ? { s: 'no_data' } : { s: 'no_data', nextTime: answer.nextTime };
  const body = { s: 'ok' as const, t: [] as number[], o: [] as number[], h: [] as number[], l: [] as number[], c: [] as number[], v: [] as number[] };
  for (const b of bars) {
    body.t.push(b.t);
    body.o.push(b.o);
    body.h.push(b.h);
    body.l.push(b.l);
    body.c.push(b.c);
    body.v.push(b.v);
  }
  return body;
}
