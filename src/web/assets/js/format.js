// Number and time formatting for the pages.

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const cents = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
/** From this many zeros after the decimal point on, they are written as 0.0₄14 (as trading sites do). */
const SUBSCRIPT_FROM = 4;

const missing = (v) => v === null || v === undefined || !Number.isFinite(v);

/**
 * A price without the currency sign: four significant digits, no exponent; a price below 0.0001
 * shows its run of zeros as a subscript count (0.000014 -> 0.0₄14). Used by the chart's price axis
 * and by every price on the pages.
 */
export function priceText(v) {
  if (missing(v)) return '–';
  if (v === 0) return '0';
  const sign = v < 0 ? '-' : '';
  const abs = Math.abs(v);
  if (abs >= 1) return sign + abs.toLocaleString('en-US', { maximumFractionDigits: abs >= 1000 ? 2 : 4 });
  let zeros = Math.floor(-Math.log10(abs));
  let digits = Math.round(abs * 10 ** (zeros + 4));
  if (digits >= 10000) {
    // Rounded up into the next decade (0.099999 -> 0.1000); just below 1 it is 1.
    if (zeros === 0) return sign + '1';
    zeros -= 1;
    digits = Math.round(digits / 10);
  }
  const significant = String(digits).replace(/0+$/, '') || '0';
  if (zeros < SUBSCRIPT_FROM) return sign + '0.' + '0'.repeat(zeros) + significant;
  const count = String(zeros)
    .split('')
    .map((d) => SUBSCRIPT[Number(d)])
    .join('');
  return `${sign}0.0${count}${significant}`;
}

/** A USD price ($0.0₄14, $0.2051, $1,234.56). */
export function price(v) {
  return missing(v) ? '–' : '$' + priceText(v);
}

/**
 * A USD amount (value, volume, liquidity, market cap), the one money format of the pages:
 * compact from 10,000 on ($12.35K, $70.87M), cents below ($812.40), a price below one cent.
 */
export function usd(v) {
  if (missing(v)) return '–';
  const abs = Math.abs(v);
  if (abs >= 10_000) return '$' + compact.format(v);
  if (abs >= 0.01 || v === 0) return '$' + cents.format(v);
  return price(v);
}

/** A plain amount in compact form. */
export function amount(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return Math.abs(v) >= 10_000 ? compact.format(v) : grouped.format(v);
}

/** A percentage with sign (+12.34 %); '–' when unknown. */
export function pct(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return (v > 0 ? '+' : '') + v.toFixed(2) + ' %';
}

/** 'up' / 'down' / '' for colouring a change. */
export const direction = (v) => (v > 0 ? 'up' : v < 0 ? 'down' : '');

/** Unix seconds as a UTC date and time. */
export function dateTime(t) {
  if (t === null || t === undefined) return '–';
  return new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}

/** Unix seconds as a UTC time of day. */
export function timeOfDay(t) {
  return new Date(t * 1000).toISOString().slice(11, 19);
}

/** A long address shortened for display (first 4 … last 4). */
export const short = (a) => (typeof a === 'string' && a.length > 12 ? `${a.slice(0, 4)}…${a.slice(-4)}` : String(a ?? ''));
