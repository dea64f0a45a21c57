/**
 * The demo data set: a deterministic market of made-up tokens (same seed and anchor, same
 * records), so that a fresh install shows charts at once and the benchmark can build big stores.
 * Every record is drawn from the per-token model in demo-model.ts. Records come out in the
 * ingest format, tokens first, then markets, holders and trades.
 */
import type { IngestRecord } from './records.js';
import { demoTokens, gaussian, seededRandom, solPriceCurve, type DemoToken } from './demo-model.js';

export { base58, demoTokens, seededRandom, type DemoToken } from './demo-model.js';

export type DemoOptions = {
  tokens: number;
  days: number;
  seed: number;
  /** Unix seconds: the data ends here (every trade is before it). */
  until: number;
  /** Overrides the model's rates: average trades per token per day (the busiest get more). */
  tradesPerTokenPerDay?: number;
  /** Share (0..1) of all trades that go to the first token, the "hot" one; default: the model's. */
  hotShare?: number;
  /** At most this many holders per token (default: the model's hundreds to thousands). */
  holdersPerToken?: number;
};

export const SOL_ADDRESS = 'So11111111111111111111111111111111111111112';
export const USDC_ADDRESS = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** Trades per second of each token: the model's, or rescaled as the options ask. */
function tradeRates(tokens: DemoToken[], opts: DemoOptions): number[] {
  const rates = tokens.map((t) => t.tradesPerHour / 3600);
  if (opts.tradesPerTokenPerDay === undefined && opts.hotShare === undefined) return rates;
  if (opts.hotShare !== undefined && tokens.length > 1) {
    const rest = rates.slice(1).reduce((a, b) => a + b, 0);
    rates[0] = (opts.hotShare / (1 - opts.hotShare)) * rest;
  }
  if (opts.tradesPerTokenPerDay !== undefined) {
    const sum = rates.reduce((a, b) => a + b, 0);
    const want = (opts.tradesPerTokenPerDay * tokens.length) / 86400;
    for (let i = 0; i < rates.length; i++) rates[i] = (rates[i]! * want) / sum;
  }
  return rates;
}

/** All records of the demo set, in an order ingest accepts. */
export function* demoRecords(opts: DemoOptions): Generator<IngestRecord> {
  const tokens = demoTokens(opts);
  const start = opts.until - opts.days * 86400;
  const created = tokens.map((t) => opts.until - Math.round(t.ageDays * 86400));
  const rates = tradeRates(tokens, opts);
  const solPrice = solPriceCurve(opts.seed, start, opts.until);

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    yield {
      type: 'token',
      address: t.address,
      symbol: t.symbol,
      name: t.name,
      decimals: t.decimals,
      totalSupply: t.totalSupply,
      circulatingSupply: t.circulatingSupply,
      createdAt: created[i]!,
      logoUri: null,
    };
  }
  for (let i = 0; i < tokens.length; i++) {
    for (const p of tokens[i]!.pairs) {
      yield {
        type: 'market',
        address: p.address,
        token: tokens[i]!.address,
        quoteAddress: p.quote === 'SOL' ? SOL_ADDRESS : USDC_ADDRESS,
        quoteSymbol: p.quote,
        dex: p.dex,
        liquidityUsd: p.liquidityUsd,
        createdAt: created[i]! + 60,
      };
    }
  }
  for (const t of tokens) {
    for (let k = 0; k < t.wallets.length; k++) {
      yield { type: 'holder', token: t.address, owner: t.wallets[k]!, amount: t.holdings[k]!, updatedAt: opts.until };
    }
  }
  for (let i = 0; i < tokens.length; i++) yield* tokenTrades(tokens[i]!, i, Math.max(start, created[i]! + 120), opts, rates[i]!, solPrice);
}

/**
 * One token's trades: count = rate x span, times spread evenly at random over [from, until)
 * (uniform order statistics, so nothing piles up at either end), the price a random walk with
 * the token's volatility that ends exactly at the model price.
 */
function* tokenTrades(t: DemoToken, i: number, from: number, opts: DemoOptions, rate: number, solPrice: (t: number) => number): Generator<IngestRecord> {
  const span = opts.until - from;
  const count = span > 0 ? Math.round(rate * span) : 0;
  if (count === 0) return;
  const rand = seededRandom((opts.seed ^ 0x5eed ^ Math.imul(i + 1, 0x85ebca6b)) >>> 0);

  // Arrival times: cumulative exponential gaps scaled into the span (count + 1 gaps).
  const times = new Float64Array(count + 1);
  let acc = 0;
  for (let k = 0; k <= count; k++) times[k] = acc += -Math.log(Math.max(rand(), 1e-12));
  // Log-price steps: the token's daily volatility spread over its trades per day, plus the
  // climb of a fresh launch from its launch price.
  const perDay = rate * 86400;
  const sigma = t.dailyVol / Math.sqrt(Math.max(1, perDay));
  const drift = -Math.log(t.launchRatio) / count;
  const steps = new Float64Array(count);
  let walk = 0;
  for (let k = 0; k < count; k++) walk += steps[k] = drift + sigma * gaussian(rand);
  let logPrice = Math.log(t.price) - walk;

  const weights = t.pairs.map((p) => p.liquidityUsd);
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const maxTrade = Math.max(50, weightSum * 0.02);
  const sigBase = `${t.address.slice(0, 30)}`;
  for (let k = 0; k < count; k++) {
    logPrice += steps[k]!;
    const blockTime = from + Math.floor((span * times[k]!) / times[count]!);
    const price = Math.exp(logPrice);
    // Buyers push the price up: a step up is mostly a buy.
    const side = steps[k]! > drift === rand() < 0.8 ? 'buy' : 'sell';
    const volumeUsd = Math.round(Math.min(maxTrade, Math.max(1, t.medianTradeUsd * Math.exp(1.1 * gaussian(rand)))) * 100) / 100;
    let pick = rand() * weightSum;
    let m = 0;
    while (m < t.pairs.length - 1 && (pick -= weights[m]!) > 0) m++;
    const pair = t.pairs[m]!;
    yield {
      type: 'trade',
      token: t.address,
      market: pair.address,
      signature: `${sigBase}${i.toString(36)}x${k.toString(36)}`,
      index: 0,
      blockTime,
      side,
      priceUsd: price,
      amount: volumeUsd / price,
      quoteAmount: pair.quote === 'USDC' ? volumeUsd : volumeUsd / solPrice(blockTime),
      volumeUsd,
      wallet: t.wallets[Math.floor(Math.pow(rand(), 1.6) * t.wallets.length)]!,
    };
  }
}
