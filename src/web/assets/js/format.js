// Number and time formatting for the pages.

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** A USD price with four significant digits, without exponent notation. */
export function price(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (v === 0) return '$0';
  const abs = Math.abs(v);
  if (abs >= 1) return '$' + v.toLocaleString('en-US', { maximumFractionDigits: abs >= 1000 ? 2 : 4 });
  const digits = Math.min(20, Math.max(2, 3 - Math.floor(Math.log10(abs))));
  return '$' + v.toFixed(digits).replace(/0+$/, '').replace(/\.$/, '');
}

/** A USD amount in compact form ($1.2M). */
export function usd(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return '$' + (Math.abs(v) >= 10_000 ? compact.format(v) : grouped.format(v));
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
