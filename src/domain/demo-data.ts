/**
 * The demo data set: a deterministic market of made-up tokens (same seed and anchor, same
 * records), so that a fresh install shows charts at once and the benchmark can build big stores.
 * Records come out in the ingest format, tokens first, then markets, holders and trades.
 */
import type { IngestRecord } from './records.js';

export type DemoOptions = {
  tokens: number;
  days: number;
  seed: number;
  /** Unix seconds: the data ends here (the newest trade is at or before it). */
  until: number;
  /** Average trades per token per day (the busiest tokens get several times more). */
  tradesPerTokenPerDay?: number;
  /** Share (0..1) of all trades that go to the first token, the "hot" one; default: spread by popularity. */
  hotShare?: number;
  holdersPerToken?: number;
};

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const SYMBOLS = ['BONK', 'WIF', 'POPCAT', 'MEW', 'BOME', 'SLERF', 'MYRO', 'SAMO', 'WEN', 'PONKE', 'MOODENG', 'GIGA', 'FWOG', 'MICHI', 'RETARDIO', 'SC', 'CHILLGUY', 'PNUT', 'GOAT', 'ZEREBRO', 'AI16Z', 'ARC', 'GRIFFAIN', 'TNSR', 'JUP', 'RAY', 'ORCA', 'PYTH', 'JTO', 'DRIFT'];
const NAMES = ['Bonk', 'dogwifhat', 'Popcat', 'cat in a dogs world', 'Book of Meme', 'Slerf', 'Myro', 'Samoyedcoin', 'Wen', 'Ponke', 'Moo Deng', 'Gigachad', 'Fwog', 'Michi', 'Retardio', 'Sharecoin', 'Just a chill guy', 'Peanut the Squirrel', 'Goatseus Maximus', 'Zerebro', 'ai16z', 'AI Rig Complex', 'Griffain', 'Tensor', 'Jupiter', 'Raydium', 'Orca', 'Pyth Network', 'Jito', 'Drift'];
const DEXES = ['raydium', 'orca', 'meteora'];
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** sfc32: a small, fast, well-distributed seeded generator. */
export function seededRandom(seed: number): () => number {
  let a = 0x9e3779b9, b = 0x243f6a88, c = 0xb7e15162, d = seed >>> 0;
  const next = () => {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

export function base58(rand: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += BASE58[Math.floor(rand() * 58)];
  return s;
}

function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

export type DemoToken = { address: string; symbol: string; markets: string[]; price: number; wallets: string[] };

/** The tokens of a demo set (addresses, symbols, markets, starting prices), without any trade. */
export function demoTokens(opts: Pick<DemoOptions, 'tokens' | 'seed'>): DemoToken[] {
  const rand = seededRandom(opts.seed);
  const out: DemoToken[] = [];
  for (let i = 0; i < opts.tokens; i++) {
    const round = Math.floor(i / SYMBOLS.length);
    const symbol = SYMBOLS[i % SYMBOLS.length]! + (round > 0 ? String(round + 1) : '');
    const markets = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => base58(rand, 44));
    const price = Math.exp(-12 + rand() * 14); // from ~6e-6 to ~7 USD
    const wallets = Array.from({ length: 40 + Math.floor(rand() * 160) }, () => base58(rand, 44));
    out.push({ address: base58(rand, 44), symbol, markets, price, wallets });
  }
  return out;
}

/** All records of the demo set, in an order ingest accepts. */
export function* demoRecords(opts: DemoOptions): Generator<IngestRecord> {
  const tokens = demoTokens(opts);
  const rand = seededRandom(opts.seed ^ 0x5eed);
  const start = opts.until - opts.days * 86400;
  const perDay = opts.tradesPerTokenPerDay ?? 250;
  const holdersPerToken = opts.holdersPerToken ?? 120;

  // Popularity: a few tokens take most of the trades, as on a real chain.
  const weights = tokens.map((_, i) => 1 / (1 + i * 0.35));
  if (opts.hotShare !== undefined && tokens.length > 1) {
    const rest = weights.slice(1).reduce((a, b) => a + b, 0);
    weights[0] = (opts.hotShare / (1 - opts.hotShare)) * rest;
  }
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const totalTrades = Math.round(perDay * opts.days * tokens.length);

  const created = tokens.map((_, i) => {
    // The last few tokens are young, so the "new" list has something to show.
    const young = i >= tokens.length - Math.max(1, Math.floor(tokens.length / 5));
    return young ? opts.until - Math.floor((0.2 + rand() * 5) * 86400) : start - Math.floor((1 + rand() * 300) * 86400);
  });

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const decimals = rand() < 0.5 ? 6 : 9;
    const totalSupply = Math.round(Math.exp(18 + rand() * 12));
    yield {
      type: 'token', address: t.address, symbol: t.symbol, name: NAMES[i % NAMES.length]!,
      decimals, totalSupply, circulatingSupply: Math.round(totalSupply * (0.5 + rand() * 0.5)),
      createdAt: created[i]!, logoUri: null,
    };
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    for (const m of t.markets) {
      const usdc = rand() < 0.3;
      yield {
        type: 'market', address: m, token: t.address, quoteAddress: usdc ? USDC : SOL, quoteSymbol: usdc ? 'USDC' : 'SOL',
        dex: DEXES[Math.floor(rand() * DEXES.length)]!, liquidityUsd: Math.round(Math.exp(8 + rand() * 8) * 100) / 100,
        createdAt: created[i]! + 60,
      };
    }
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const n = Math.min(t.wallets.length, holdersPerToken);
    for (let k = 0; k < n; k++) {
      yield { type: 'holder', token: t.address, owner: t.wallets[k]!, amount: Math.round(1e6 / Math.pow(k + 1, 1.1) * (1 + rand())), updatedAt: opts.until };
    }
  }

  // Trades: each token a Poisson stream over its life within the window, price a random walk.
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const from = Math.max(start, created[i]! + 120);
    const span = opts.until - from;
    if (span <= 0) continue;
    const count = Math.round((totalTrades * weights[i]!) / weightSum * (span / (opts.days * 86400)));
    if (count === 0) continue;
    const meanGap = span / count;
    const sigma = 0.004 + rand() * 0.01;
    let price = t.price;
    let time = from;
    const sigBase = base58(rand, 40);
    for (let k = 0; k < count; k++) {
      time += -Math.log(Math.max(rand(), 1e-12)) * meanGap;
      const blockTime = Math.min(opts.until, Math.floor(time));
      price *= Math.exp(sigma * gaussian(rand));
      const side = rand() < 0.52 ? 'buy' : 'sell';
      const volumeUsd = Math.round(Math.exp(2 + rand() * 7) * 100) / 100;
      yield {
        type: 'trade', token: t.address, market: t.markets[Math.floor(rand() * t.markets.length)]!,
        signature: `${sigBase}${i.toString(36)}x${k.toString(36)}`, index: 0, blockTime, side,
        priceUsd: price, amount: volumeUsd / price, quoteAmount: volumeUsd / 150, volumeUsd,
        wallet: t.wallets[Math.floor(Math.pow(rand(), 2) * t.wallets.length)]!,
      };
    }
  }
}
