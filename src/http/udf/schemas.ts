/**
 * Response schemas of the UDF datafeed (docs/api.md, TradingView UDF datafeed), in the field names the
 * TradingView adapter reads (snake_case, one-letter bar arrays). Symbol info never has an `s`.
 */
import { z } from 'zod';

const EX_TOKEN = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const resolutions = z.array(z.string()).describe('Resolutions in the UDF spelling');
const RESOLUTIONS_EXAMPLE = ['1S', '5S', '15S', '30S', '1', '5', '15', '30', '60', '240', '1D', '1W', '1M'];

export const udfConfig = z
  .strictObject({
    supports_search: z.boolean(),
    supports_group_request: z.boolean(),
    supports_marks: z.boolean(),
    supports_timescale_marks: z.boolean(),
    supports_time: z.boolean(),
    exchanges: z.array(z.strictObject({ value: z.string(), name: z.string(), desc: z.string() })).describe('One per dex, after "" (all exchanges)'),
    symbols_types: z.array(z.strictObject({ name: z.string(), value: z.string() })),
    supported_resolutions: resolutions,
  })
  .describe('Datafeed configuration');
export const udfConfigExample: z.output<typeof udfConfig> = {
  supports_search: true,
  supports_group_request: false,
  supports_marks: true,
  supports_timescale_marks: false,
  supports_time: true,
  exchanges: [
    { value: '', name: 'All Exchanges', desc: '' },
    { value: 'raydium', name: 'raydium', desc: 'raydium' },
  ],
  symbols_types: [{ name: 'Crypto', value: 'crypto' }],
  supported_resolutions: RESOLUTIONS_EXAMPLE,
};

export const udfSymbol = z
  .strictObject({
    name: z.string().describe('Symbol (SYMBOL/QUOTE for a pair)'),
    ticker: z.string().describe('Token (or market) address, `chain:address` off the default chain: what /udf/history takes as symbol'),
    description: z.string(),
    type: z.string(),
    session: z.string(),
    timezone: z.string(),
    exchange: z.string().describe('Exchange named by the caller, else the most liquid dex (the chain name without markets)'),
    listed_exchange: z.string(),
    format: z.string(),
    pricescale: z.number().min(1).describe('10^max(2, 3 - floor(log10 price)): four significant digits'),
    minmov: z.int(),
    has_intraday: z.boolean(),
    has_seconds: z.boolean(),
    seconds_multipliers: z.array(z.string()),
    intraday_multipliers: z.array(z.string()),
    has_daily: z.boolean(),
    has_weekly_and_monthly: z.boolean(),
    supported_resolutions: resolutions,
    volume_precision: z.int().min(0),
    visible_plots_set: z.string(),
    data_status: z.string(),
    currency_code: z.string().describe('USD; MCAP for a token asked in market cap; the quote symbol for a pair asked in its quote currency'),
    currency_codes: z
      .array(z.string())
      .optional()
      .describe("The chart's currency menu: USD and MCAP for a token with a circulating supply (absent without one); USD and the quote symbol for a pair"),
  })
  .describe('Symbol info (no `s` field: the adapter takes any `s` for an error)');
export const udfSymbolExample: z.output<typeof udfSymbol> = {
  name: 'BONK',
  ticker: EX_TOKEN,
  description: 'Bonk',
  type: 'crypto',
  session: '24x7',
  timezone: 'Etc/UTC',
  exchange: 'raydium',
  listed_exchange: 'raydium',
  format: 'price',
  pricescale: 100000000,
  minmov: 1,
  has_intraday: true,
  has_seconds: true,
  seconds_multipliers: ['1', '5', '15', '30'],
  intraday_multipliers: ['1', '5', '15', '30', '60', '240'],
  has_daily: true,
  has_weekly_and_monthly: true,
  supported_resolutions: RESOLUTIONS_EXAMPLE,
  volume_precision: 2,
  visible_plots_set: 'ohlcv',
  data_status: 'streaming',
  currency_code: 'USD',
  currency_codes: ['USD', 'MCAP'],
};

export const udfSearch = z
  .array(
    z.strictObject({
      symbol: z.string(),
      full_name: z.string().describe('EXCHANGE:SYMBOL'),
      description: z.string(),
      exchange: z.string(),
      ticker: z.string().describe('Token address: `chain:address` off the default chain (docs/chains.md)'),
      type: z.string(),
      chain: z.string().optional().describe("The token's chain; only in a deployment of several chains"),
    }),
  )
  .describe('Matching symbols');
export const udfSearchExample: z.output<typeof udfSearch> = [
  { symbol: 'BONK', full_name: 'raydium:BONK', description: 'Bonk', exchange: 'raydium', ticker: EX_TOKEN, type: 'crypto' },
];

const bars = (what: string) => z.array(z.number()).describe(what);
export const udfHistory = z
  .discriminatedUnion('s', [
    z.strictObject({
      s: z.literal('ok'),
      t: z.array(z.int()).describe('Bar start times, ascending (unix seconds)'),
      o: bars('Opens'),
      h: bars('Highs'),
      l: bars('Lows'),
      c: bars('Closes'),
      v: bars('Volumes'),
    }),
    z.strictObject({
      s: z.literal('no_data'),
      nextTime: z.int().optional().describe('Time of the newest bar before `from`; absent when nothing older exists'),
    }),
  ])
  .describe('Bars, or no_data');
export const udfHistoryExample: z.output<typeof udfHistory> = {
  s: 'ok',
  t: [1763852400, 1763856000],
  o: [0.0000211, 0.0000213],
  h: [0.0000215, 0.0000214],
  l: [0.000021, 0.0000212],
  c: [0.0000213, 0.0000214],
  v: [51234.5, 20311],
};

export const udfTime = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/)
  .describe('Server time: a bare integer of unix seconds (text/plain)');
export const udfTimeExample = '1763856000';

const nullableNumber = (what: string) => z.number().nullable().describe(`${what}, null when unknown`);
export const udfQuotes = z
  .strictObject({
    s: z.literal('ok'),
    d: z
      .array(
        z.discriminatedUnion('s', [
          z.strictObject({
            s: z.literal('ok'),
            n: z.string().describe('The name exactly as asked'),
            v: z.strictObject({
              lp: nullableNumber('Last price'),
              ch: nullableNumber('Change over 24 h'),
              chp: nullableNumber('Change over 24 h in percent'),
              volume: z.number().describe('Volume over 24 h (USD)'),
              open_price: nullableNumber('First price of the 24 h'),
              high_price: nullableNumber('Highest price of the 24 h'),
              low_price: nullableNumber('Lowest price of the 24 h'),
              prev_close_price: nullableNumber('Price 24 h ago'),
              short_name: z.string(),
              exchange: z.string(),
              description: z.string(),
            }),
          }),
          z.strictObject({
            s: z.literal('error'),
            n: z.string().describe('The name exactly as asked'),
            errmsg: z.string(),
            v: z.strictObject({}).describe('Empty'),
          }),
        ]),
      )
      .describe('One item per name, in the order asked'),
  })
  .describe('Quotes over a rolling 24 h');
export const udfQuotesExample: z.output<typeof udfQuotes> = {
  s: 'ok',
  d: [
    {
      s: 'ok',
      n: 'BONK',
      v: {
        lp: 0.0000213,
        ch: 0.0000008,
        chp: 3.9,
        volume: 8300000,
        open_price: 0.0000205,
        high_price: 0.0000219,
        low_price: 0.0000201,
        prev_close_price: 0.0000205,
        short_name: 'BONK',
        exchange: 'raydium',
        description: 'Bonk',
      },
    },
    { s: 'error', n: 'NOPE', errmsg: 'unknown symbol', v: {} },
  ],
};

const markColumn = <T extends z.ZodType>(item: T, what: string) => z.array(item).describe(what);
export const udfMarks = z
  .strictObject({
    id: markColumn(z.int(), 'Trade ids (record numbers)'),
    time: markColumn(z.int(), 'Trade times (unix seconds), ascending'),
    color: markColumn(z.string(), 'Green (#26a69a) for a buy, red (#ef5350) for a sell'),
    text: markColumn(z.string(), 'Side, amount, price, USD value and time of the trade'),
    label: markColumn(z.enum(['B', 'S']), 'B for a buy, S for a sell'),
    labelFontColor: markColumn(z.string(), 'Colour of the label letter'),
    minSize: markColumn(z.int(), 'Smallest size of the mark (pixels)'),
  })
  .describe("A wallet's trades as marks, in columns of one length (all empty without a wallet)");
export const udfMarksExample: z.output<typeof udfMarks> = {
  id: [812345, 812399],
  time: [1763852460, 1763856120],
  color: ['#26a69a', '#ef5350'],
  text: ['Buy 1,200,000 BONK at $0.00002131 ($25.57) on 2025-11-22 23:01:00 UTC', 'Sell 600,000 BONK at $0.00002142 ($12.85) on 2025-11-23 00:02:00 UTC'],
  label: ['B', 'S'],
  labelFontColor: ['#ffffff', '#ffffff'],
  minSize: [14, 14],
};
