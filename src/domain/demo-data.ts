/**
 * The demo data set: a deterministic market of made-up tokens (same seed and anchor, same
 * records), so that a fresh install shows charts at once and the benchmark can build big stores.
 * Every record is drawn from the per-token model in demo-model.ts. Records come out in the
 * ingest format, tokens first, then markets, holders and trades.
 */
import type { IngestRecord } from './records.js';
import { demoTokens, gaussian, seededRandom, solPriceCurve, type DemoToken } from './demo-model.js';
import { ageForTrades, flatActivity, medianTradeAt, tradesWithin, type Activity } from './demo-activity.js';

export { base58, demoTokens, seededRandom, type DemoToken } from './demo-model.js';

export type DemoOptions = {
  tokens: number;
  days: number;
  seed: number;
  /** Unix seconds: the data ends here (every trade is before it). */
  until: number;
  /**
   * Overrides the model's rates: average trades per token per day (the busiest get more), each
   * token at one flat rate and trade size throughout (sets sized by a trade count: benchmark).
   */
  tradesPerTokenPerDay?: number;
  /** Share (0..1) of all trades that go to the first token, the "hot" one; flat rates as above. */
  hotShare?: number;
  /** At most this many holders per token (default: the model's hundreds to thousands). */
  holdersPerToken?: number;
};

export const SOL_ADDRESS = 'So11111111111111111111111111111111111111112';
export const USDC_ADDRESS = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/**
 * How busy each token is over the history: the model's quiet past and busy end, or flat rates
 * rescaled as the options ask. The demo feed continues each token at its `live` rate.
 */
export function demoActivities(tokens: DemoToken[], opts: Omit<DemoOptions, 'until' | 'days'>): Activity[] {
  if (opts.tradesPerTokenPerDay === undefined && opts.hotShare === undefined) {
    return tokens.map((t) => ({ base: t.tradesPerHour / 3600, live: t.liveTradesPerHour / 3600, volumeRamp: t.volumeRamp }));
  }
  const rates = tokens.map((t) => t.tradesPerHour / 3600);
  if (opts.hotShare !== undefined && tokens.length > 1) {
    const rest = rates.slice(1).reduce((a, b) => a + b, 0);
    rates[0] = (opts.hotShare / (1 - opts.hotShare)) * rest;
  }
  if (opts.tradesPerTokenPerDay !== undefined) {
    const sum = rates.reduce((a, b) => a + b, 0);
    const want = (opts.tradesPerTokenPerDay * tokens.length) / 86400;
    for (let i = 0; i < rates.length; i++) rates[i] = (rates[i]! * want) / sum;
  }
  return rates.map(flatActivity);
}

/** All records of the demo set, in an order ingest accepts. */
export function* demoRecords(opts: DemoOptions): Generator<IngestRecord> {
  const tokens = demoTokens(opts);
  const start = opts.until - opts.days * 86400;
  const created = tokens.map((t) => opts.until - Math.round(t.ageDays * 86400));
  const activities = demoActivities(tokens, opts);
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
  for (let i = 0; i < tokens.length; i++) yield* tokenTrades(tokens[i]!, i, Math.max(start, created[i]! + 120), opts, activities[i]!, solPrice);
}

/**
 * One token's trades: count = the expected number over [from, until) of its activity, times
 * spread at random with that activity's density (uniform order statistics mapped through the
 * inverse of the expected count, so nothing piles up at either end), the price a random walk in
 * time with the token's daily volatility that ends exactly at the model price.
 */
function* tokenTrades(t: DemoToken, i: number, from: number, opts: DemoOptions, activity: Activity, solPrice: (t: number) => number): Generator<IngestRecord> {
  const span = opts.until - from;
  const expected = span > 0 ? tradesWithin(activity, span) : 0;
  const count = Math.round(expected);
  if (count === 0) return;
  const rand = seededRandom((opts.seed ^ 0x5eed ^ Math.imul(i + 1, 0x85ebca6b)) >>> 0);

  // Arrival times: cumulative exponential gaps scaled into (0, 1) (count + 1 gaps), then mapped
  // to ages (seconds before `until`) with the activity's density.
  const gaps = new Float64Array(count + 1);
  let acc = 0;
  for (let k = 0; k <= count; k++) gaps[k] = acc += -Math.log(Math.max(rand(), 1e-12));
  const ages = new Float64Array(count);
  for (let k = 0; k < count; k++) ages[k] = Math.max(1e-6, ageForTrades(activity, (1 - gaps[k]! / gaps[count]!) * expected, span));
  // Log-price steps: Brownian in time (a busy hour moves the price no more than a quiet one),
  // plus the climb of a fresh launch from its launch price, spread evenly over its life.
  const climb = -Math.log(t.launchRatio) / span;
  const steps = new Float64Array(count);
  const drifts = new Float64Array(count);
  let walk = 0;
  let previousAge = span;
  for (let k = 0; k < count; k++) {
    const dt = previousAge - ages[k]!;
    previousAge = ages[k]!;
    drifts[k] = climb * dt;
    walk += steps[k] = drifts[k]! + t.dailyVol * Math.sqrt(dt / 86400) * gaussian(rand);
  }
  let logPrice = Math.log(t.price) - walk;

  const weights = t.pairs.map((p) => p.liquidityUsd);
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const maxTrade = Math.max(50, weightSum * 0.02);
  const sigBase = `${t.address.slice(0, 30)}`;
  for (let k = 0; k < count; k++) {
    logPrice += steps[k]!;
    const blockTime = opts.until - Math.ceil(ages[k]!);
    const price = Math.exp(logPrice);
    // Buyers push the price up: a step up is mostly a buy.
    const side = steps[k]! > drifts[k]! === rand() < 0.8 ? 'buy' : 'sell';
    const median = medianTradeAt(activity, t.medianTradeUsd, ages[k]!);
    const volumeUsd = Math.round(Math.min(maxTrade, Math.max(1, median * Math.exp(1.1 * gaussian(rand)))) * 100) / 100;
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

/** What the demo feed needs to continue a token as its history ended. */
export type LiveRate = { perSecond: number; medianTradeUsd: number; dailyVol: number };

/**
 * Each token's live rate, trade size and volatility at the end of the history `opts` makes (by
 * address): the demo feed trades at exactly these, so its rate equals the history's last hours.
 */
export function demoLiveRates(opts: Omit<DemoOptions, 'until' | 'days'>): Map<string, LiveRate> {
  const tokens = demoTokens(opts);
  const activities = demoActivities(tokens, opts);
  return new Map(
    tokens.map((t, i) => {
      const a = activities[i]!;
      return [t.address, { perSecond: a.live, medianTradeUsd: medianTradeAt(a, t.medianTradeUsd, 0), dailyVol: t.dailyVol }];
    }),
  );
}
