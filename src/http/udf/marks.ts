/**
 * UDF /marks (docs/api.md, A wallet's trades on the chart): the trades a wallet made of the charted
 * token in [from, to), as marks the Charting Library draws on the bars (B on green, S on red), at
 * most 1000, the newest. Without a wallet the answer is empty: the library asks for marks whenever
 * /udf/config says it supports them, and most charts follow no wallet. A page is one seek on the
 * trades index by (token, wallet, block_time), the one the wallet filter of the trades route reads.
 */
import { z } from 'zod';
import { addressParam, enumParam, intParam } from '../validate.js';
import { invalidParameter } from '../../errors.js';
import type { ApiRouter } from '../route.js';
import { SUPPORTED_RESOLUTIONS } from '../../domain/resolution.js';
import { MAX_MARKS, noMarks, walletMarks } from '../../domain/marks.js';
import { toTradeJson } from '../../store/port/repos.js';
import { resolveChart, symbolParam, type UdfDeps } from './params.js';
import { MAX_TIME_PARAM } from './history.js';
import { udfMarks, udfMarksExample } from './schemas.js';

const RESOLUTIONS = [...SUPPORTED_RESOLUTIONS, 'D', 'W', 'M'] as const;
/** Above every trade id: the page reads every stored trade of the range. */
const NO_BOUND = Number.MAX_SAFE_INTEGER;

export function addMarksRoute(router: ApiRouter, deps: UdfDeps): void {
  const { symbols, trades, cache } = deps;
  router.add(
    {
      method: 'get',
      path: '/udf/marks',
      summary: "A wallet's trades of the symbol's token in [from, to) as UDF marks (B/S), at most 1000, the newest; empty columns without a wallet",
      access: 'public',
      tag: 'udf',
      query: z.object({
        symbol: symbolParam(),
        from: intParam(0, MAX_TIME_PARAM),
        to: intParam(0, MAX_TIME_PARAM),
        resolution: enumParam(RESOLUTIONS).optional().describe('The chart resolution the library sends; marks are per trade whatever it is'),
        wallet: addressParam().optional().describe('The wallet whose trades are marked'),
      }),
      response: udfMarks,
      example: udfMarksExample,
    },
    async ({ query: q }) => {
      if (q.from >= q.to) throw invalidParameter('from', 'from must be less than to');
      // A pair symbol marks the wallet's trades of its token (in every market of it).
      const chart = await resolveChart(symbols, q.symbol, 'USD');
      const token = chart.kind === 'token' ? chart.resolved.token : chart.pair.token;
      const wallet = q.wallet;
      if (wallet === undefined) return noMarks();
      return cache.json({ token: token.id }, `udf-marks|${wallet}|${q.from}|${q.to}`, async () => {
        const rows = await trades.page(token.id, { side: null, wallet, after: q.from, before: q.to }, null, NO_BOUND, MAX_MARKS);
        // Newest first from the index; the chart takes them oldest first.
        return walletMarks(rows.reverse().map(toTradeJson), token.symbol);
      });
    },
  );
}
