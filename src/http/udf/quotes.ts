/**
 * UDF /quotes (docs/api.md, TradingView UDF datafeed): one item per name asked, in the order asked, with `n`
 * exactly as asked, over a rolling 24 h window (now - 24 h, now]. A name that resolves to nothing
 * is an item with `s: "error"`; the answer as a whole stays `s: "ok"`.
 */
import { z } from 'zod';
import type { ApiRouter } from '../route.js';
import { nowSeconds } from '../../domain/clock.js';
import { quoteValues } from '../../domain/udf.js';
import type { UdfDeps } from './params.js';
import { describedOnChain } from '../../domain/udf-chains.js';
import { udfQuotes, udfQuotesExample } from './schemas.js';

export const MAX_QUOTE_NAMES = 100;
const DAY = 86400;

type QuoteItem = { s: 'ok'; n: string; v: ReturnType<typeof quoteValues> } | { s: 'error'; n: string; errmsg: string; v: Record<string, never> };

export function addQuotesRoute(router: ApiRouter, deps: UdfDeps): void {
  const { symbols, windows, clock, chains } = deps;
  router.add(
    {
      method: 'get',
      path: '/udf/quotes',
      summary: 'UDF quotes over a rolling 24 h for up to 100 comma-separated names',
      access: 'public',
      tag: 'udf',
      query: z.object({
        symbols: z
          .string()
          .transform((v) => v.split(','))
          .refine((names) => names.length <= MAX_QUOTE_NAMES, { message: `must list at most ${MAX_QUOTE_NAMES} names` }),
      }),
      response: udfQuotes,
      example: udfQuotesExample,
    },
    async ({ query: q }) => {
      const now = nowSeconds(clock);
      // The names are read together (one wait on PostgreSQL, not one per name), answered in order.
      const d = await Promise.all(
        q.symbols.map(async (n): Promise<QuoteItem> => {
          const found = await symbols.resolve(n);
          if (found === null) return { s: 'error', n, errmsg: 'unknown symbol', v: {} };
          const { token, exchange } = found;
          const [w, last, base] = await Promise.all([
            windows.window(token.id, now, DAY, token.lastTradeAt),
            windows.priceAt(token.id, now),
            windows.priceAt(token.id, now - DAY),
          ]);
          const values = quoteValues(token, exchange, {
            last,
            base,
            volume: w.volumeUsd,
            open: w.open,
            high: w.high,
            low: w.low,
          });
          return { s: 'ok', n, v: { ...values, description: describedOnChain(values.description, token.address, chains) } };
        }),
      );
      return { s: 'ok' as const, d };
    },
  );
}
