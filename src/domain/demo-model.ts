/**
 * The economic model behind the demo data set: one coherent description per token (its tier,
 * supplies, price, market cap, liquidity, holders, trade rate and trade size), from which every
 * record of the set is drawn. A few large caps, a run of mid caps, a long tail of small ones and
 * a couple of fresh launches, with made-up names. Market cap is price x circulating supply,
 * liquidity a tier-dependent slice of the cap, holder amounts a power law that sums to less than
 * the circulating supply. Each token trades at a quiet rate through most of its history and at a
 * busier live rate at the end (demo-activity.ts), the rate the demo feed keeps. README, Demo data.
 */

export type Tier = 'large' | 'mid' | 'small' | 'fresh';

export type DemoMarket = { address: string; quote: 'SOL' | 'USDC'; dex: string; liquidityUsd: number };

export type DemoToken = {
  address: string;
  symbol: string;
  name: string;
  tier: Tier;
  decimals: number;
  totalSupply: number;
  circulatingSupply: number;
  /** USD price at the end of the history: the market cap divided by the circulating supply. */
  price: number;
  /** Days between the token's creation and the end of the history. */
  ageDays: number;
  /** Market addresses (the same order as `pairs`). */
  markets: string[];
  pairs: DemoMarket[];
  /** Holder wallets, largest first; trades are made by these wallets. */
  wallets: string[];
  /** Holder amounts in tokens, the same order as `wallets`. */
  holdings: number[];
  /** Trades per hour in the quiet past (most of the history). */
  tradesPerHour: number;
  /** Trades per hour over the last hours of the history, and of the demo feed after it. */
  liveTradesPerHour: number;
  /** Median trade value in USD in the quiet past (trade values are log-normal around it). */
  medianTradeUsd: number;
  /** Median trade value at the live rate: the busy end is many smaller trades. */
  liveMedianTradeUsd: number;
  /** USD volume per hour at the live end as a multiple of the quiet past's. */
  volumeRamp: number;
  /** Daily volatility of the price (standard deviation of the daily log return). */
  dailyVol: number;
  /** The price at launch as a fraction of the final price (fresh launches start low). */
  launchRatio: number;
};

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
// Made-up names: none of them is a real token, so no made-up number passes for a real one.
const NAMES: [string, string][] = [
  ['SOTR', 'Solar Otter'],
  ['VYAK', 'Velvet Yak'],
  ['LLMR', 'Lunar Lemur'],
  ['PXWL', 'Pixel Walrus'],
  ['CFNC', 'Copper Finch'],
  ['HZHG', 'Hazel Hedgehog'],
  ['NMBN', 'Nimbus Newt'],
  ['TNTP', 'Tundra Tapir'],
  ['MGMR', 'Mango Marmot'],
  ['CBCR', 'Cobalt Crab'],
  ['DZDK', 'Dizzy Duckling'],
  ['FRFX', 'Frosty Fennec'],
  ['GLGK', 'Glitter Gecko'],
  ['JDJY', 'Jade Jay'],
  ['KMKW', 'Kumquat Kiwi'],
  ['MSMH', 'Mossy Moth'],
  ['OPOC', 'Opal Ocelot'],
  ['PRPF', 'Prism Puffin'],
  ['QZQL', 'Quartz Quail'],
  ['RSRV', 'Rusty Raven'],
  ['SFSL', 'Saffron Sloth'],
  ['TFTL', 'Toffee Toad'],
  ['UMUR', 'Umber Urchin'],
  ['WBWM', 'Wobbly Wombat'],
  ['ZPZB', 'Zephyr Zebu'],
  ['BRBS', 'Bramble Bison'],
  ['CMCL', 'Comet Coral'],
  ['DWDG', 'Dewdrop Dugong'],
  ['EMEL', 'Ember Eel'],
  ['FGFL', 'Fig Flamingo'],
];
const DEXES = ['raydium', 'orca', 'meteora'];

type TierModel = {
  cap: [number, number];
  liquidityShare: [number, number];
  tradesPerHour: [number, number];
  /** The live rate as a multiple of the quiet one. */
  liveMultiple: [number, number];
  medianTradeUsd: [number, number];
  dailyVol: [number, number];
  holders: [number, number];
  ageDays: [number, number];
  markets: [number, number];
};

// Ranges are drawn log-uniformly. Volume per day lands near 1-5 % of the cap for settled tokens
// and several times the cap for fresh launches, as on a real chain. The live rates add up to a
// few trades a second over the default 20 tokens; the quiet rates keep 30 days near 100k trades.
const TIERS: Record<Tier, TierModel> = {
  large: {
    cap: [4e7, 4e8],
    liquidityShare: [0.01, 0.03],
    tradesPerHour: [8, 20],
    liveMultiple: [110, 170],
    medianTradeUsd: [2000, 5000],
    dailyVol: [0.04, 0.07],
    holders: [2500, 4500],
    ageDays: [200, 900],
    markets: [2, 3],
  },
  mid: {
    cap: [2e6, 2e7],
    liquidityShare: [0.03, 0.08],
    tradesPerHour: [3, 8],
    liveMultiple: [60, 100],
    medianTradeUsd: [800, 2000],
    dailyVol: [0.06, 0.12],
    holders: [900, 2200],
    ageDays: [45, 400],
    markets: [1, 3],
  },
  small: {
    cap: [3e4, 1.5e6],
    liquidityShare: [0.06, 0.2],
    tradesPerHour: [0.5, 3],
    liveMultiple: [8, 15],
    medianTradeUsd: [60, 200],
    dailyVol: [0.1, 0.2],
    holders: [150, 800],
    ageDays: [3, 300],
    markets: [1, 2],
  },
  fresh: {
    cap: [4e4, 3e5],
    liquidityShare: [0.12, 0.3],
    tradesPerHour: [60, 150],
    liveMultiple: [3, 6],
    medianTradeUsd: [60, 200],
    dailyVol: [0.3, 0.5],
    holders: [120, 450],
    ageDays: [0.15, 1.7],
    markets: [1, 1],
  },
};

/** sfc32: a small, fast, well-distributed seeded generator. */
export function seededRandom(seed: number): () => number {
  let a = 0x9e3779b9,
    b = 0x243f6a88,
    c = 0xb7e15162,
    d = seed >>> 0;
  const next = () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
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

export function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

const logUniform = (rand: () => number, [lo, hi]: [number, number]) => lo * Math.pow(hi / lo, rand());
const between = (rand: () => number, [lo, hi]: [number, number]) => lo + (hi - lo) * rand();

/** The tier of token `i` of `n`: about 15 % large, 25 % mid, 10 % fresh (at least one), the rest small. */
export function tierOf(i: number, n: number): Tier {
  const large = Math.max(1, Math.round(n * 0.15));
  const mid = Math.round(n * 0.25);
  const fresh = n < 4 ? 0 : Math.max(1, Math.round(n * 0.1));
  if (i < large) return 'large';
  if (i < large + mid) return 'mid';
  if (i >= n - fresh) return 'fresh';
  return 'small';
}

/** Holder amounts: a power law (Zipf with exponent near 1) scaled to `held` tokens in all. */
function holdings(rand: () => number, count: number, held: number): number[] {
  const alpha = 0.9 + rand() * 0.3;
  const raw = Array.from({ length: count }, (_, k) => (1 / Math.pow(k + 1, alpha)) * (0.85 + 0.3 * rand()));
  raw.sort((x, y) => y - x);
  const sum = raw.reduce((s, v) => s + v, 0);
  // Whole tokens, rounded down, so the sum never exceeds what was meant to be held.
  return raw.map((v) => Math.max(1, Math.floor((v / sum) * held)));
}

/** One token's model; each token has its own generator, so tokens do not shift each other. */
function modelToken(i: number, n: number, seed: number, holdersCap: number | undefined): DemoToken {
  const rand = seededRandom((seed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0);
  const tier = tierOf(i, n);
  const m = TIERS[tier];
  const round = Math.floor(i / NAMES.length);
  const [sym, nm] = NAMES[i % NAMES.length]!;
  const suffix = round > 0 ? String(round + 1) : '';
  const address = base58(rand, 44);

  const totalSupply = tier === 'fresh' ? 1e9 : Math.round(logUniform(rand, [1e8, 5e10]));
  const circulatingSupply = tier === 'fresh' ? totalSupply : Math.round(totalSupply * (0.7 + 0.3 * rand()));
  const cap = logUniform(rand, m.cap);
  const price = cap / circulatingSupply;
  const liquidity = cap * between(rand, m.liquidityShare);

  const marketCount = Math.round(between(rand, m.markets));
  const shares = Array.from({ length: marketCount }, () => 0.3 + rand());
  const shareSum = shares.reduce((s, v) => s + v, 0);
  const pairs: DemoMarket[] = shares.map((s, k) => ({
    address: base58(rand, 44),
    // The main pool is against SOL; large and mid caps also trade against USDC.
    quote: k > 0 && tier !== 'small' && rand() < 0.6 ? 'USDC' : 'SOL',
    dex: tier === 'fresh' ? 'raydium' : DEXES[Math.floor(rand() * DEXES.length)]!,
    liquidityUsd: Math.round(((liquidity * s) / shareSum) * 100) / 100,
  }));

  const holderCount = Math.min(holdersCap ?? Infinity, Math.round(logUniform(rand, m.holders)));
  const wallets = Array.from({ length: holderCount }, () => base58(rand, 44));
  // Listed holders hold 55-90 % of the circulating supply; the rest sits in wallets too small to list.
  const amounts = holdings(rand, holderCount, circulatingSupply * between(rand, [0.55, 0.9]));
  const decimals = tier === 'fresh' || rand() < 0.7 ? 6 : 9;
  const ageDays = logUniform(rand, m.ageDays);
  const tradesPerHour = logUniform(rand, m.tradesPerHour);
  const medianTradeUsd = logUniform(rand, m.medianTradeUsd);
  const dailyVol = between(rand, m.dailyVol);
  const launchRatio = tier === 'fresh' ? 1 / logUniform(rand, [4, 15]) : 1;
  // Drawn last, so that they shift no other draw of the token.
  const liveTradesPerHour = tradesPerHour * logUniform(rand, m.liveMultiple);
  const volumeRamp = between(rand, [1.5, 2.5]);

  return {
    address,
    symbol: sym + suffix,
    name: nm + (suffix ? ` ${suffix}` : ''),
    tier,
    decimals,
    totalSupply,
    circulatingSupply,
    price,
    ageDays,
    markets: pairs.map((p) => p.address),
    pairs,
    wallets,
    holdings: amounts,
    tradesPerHour,
    liveTradesPerHour,
    medianTradeUsd,
    // The live hour trades volumeRamp times the quiet hour's USD over liveTradesPerHour trades.
    liveMedianTradeUsd: (medianTradeUsd * tradesPerHour * volumeRamp) / liveTradesPerHour,
    volumeRamp,
    dailyVol,
    launchRatio,
  };
}

/** The tokens of a demo set, without any trade; the first is the largest cap. */
export function demoTokens(opts: { tokens: number; seed: number; holdersPerToken?: number }): DemoToken[] {
  return Array.from({ length: opts.tokens }, (_, i) => modelToken(i, opts.tokens, opts.seed, opts.holdersPerToken));
}

/** SOL's USD price: an hourly random walk over the window that ends near 160 USD. */
export function solPriceCurve(seed: number, start: number, until: number): (t: number) => number {
  const rand = seededRandom((seed ^ 0x50150150) >>> 0);
  const hours = Math.max(1, Math.ceil((until - start) / 3600));
  const walk = new Float64Array(hours + 1);
  const end = 140 + 40 * rand();
  for (let h = hours - 1; h >= 0; h--) walk[h] = walk[h + 1]! + 0.006 * gaussian(rand);
  return (t) => end * Math.exp(walk[Math.min(hours, Math.max(0, Math.floor((t - start) / 3600)))]!);
}
