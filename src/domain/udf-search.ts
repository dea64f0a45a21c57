/**
 * The rules of the UDF datafeed's symbol lookup and search (docs/api.md, TradingView UDF
 * datafeed) that sit around the store's reads: which names a chart's symbol is tried as, which
 * dex a filter means, when a query may be an address, and how the classes of search hits are
 * ranked into one answer. Pure: every engine's symbols repo reads its candidates with its own SQL
 * and answers through these, so the engines rank and resolve alike.
 */
import { normalizeAddress } from './address.js';

/** One search candidate: a token listed under `dex` ('' = all), with its liquidity. */
export type SymbolHit = { id: number; liq: number; address: string; dex: string };

/** Characters an address may have in any letter case (base58 upper-cased holds I and O). */
const ADDRESS_LIKE = /^(0x[0-9a-fA-F]{40}|[0-9A-Za-z]{32,44})$/;
/** Shorter queries would match addresses by chance; symbols and names serve them. */
const MIN_ADDRESS_PREFIX = 4;

/** Whether a name not found as typed may still be one address in another letter case. */
export const mayBeCasedAddress = (name: string): boolean => ADDRESS_LIKE.test(name);

/** Whether a search query is long enough to match address prefixes. */
export const searchesAddressPrefix = (query: string): boolean => query.length >= MIN_ADDRESS_PREFIX;

/** The dex filter key: '' for all exchanges, which the chain name also means. */
export const dexKey = (exchange: string | null, chain: string): string => (exchange === null || exchange.toLowerCase() === chain.toLowerCase() ? '' : exchange);

/** A lookup to try: a token named `name` (address or symbol) on `dex` ('' = any). */
export type SymbolLookup = { name: string; dex: string };

/**
 * What a chart's symbol is tried as, in order: an address, a symbol, or `EXCHANGE:SYMBOL` /
 * `EXCHANGE:ADDRESS` (an empty exchange or the chain name means all). Leading and trailing blanks
 * are ignored. A name that is not found as `EXCHANGE:...` is still tried whole.
 */
export function symbolLookups(name: string, chain: string): SymbolLookup[] {
  const n = name.trim();
  if (n === '') return [];
  const out: SymbolLookup[] = [];
  const colon = n.indexOf(':');
  if (colon >= 0) {
    const rest = n.slice(colon + 1).trim();
    if (rest !== '') out.push({ name: rest, dex: dexKey(n.slice(0, colon).trim() || null, chain) });
  }
  out.push({ name: n, dex: '' });
  return out;
}

/**
 * A pair symbol: a market's address, or `EXCHANGE:ADDRESS`; `address` null when it is no address.
 * `dex` is the filter key ('' = any dex).
 */
export function pairName(name: string, chain: string): { dex: string; address: string | null } {
  const n = name.trim();
  const colon = n.indexOf(':');
  return {
    dex: colon < 0 ? '' : dexKey(n.slice(0, colon).trim() || null, chain),
    address: normalizeAddress(colon < 0 ? n : n.slice(colon + 1).trim()),
  };
}

/** Whether a market on `marketDex` passes a pair name's dex filter (case-insensitive; '' passes all). */
export const dexAllows = (dex: string, marketDex: string): boolean => dex === '' || dex.toLowerCase() === marketDex.toLowerCase();

/** The exchange shown for a token: its most liquid market's dex, else the chain's name. */
export const topDexOr = <T extends { topDex: string }>(token: T, chain: string): T => (token.topDex === '' ? { ...token, topDex: chain } : token);

/** The exchange a hit is shown under: its dex, or for the all-dex listing its token's top dex. */
export const hitExchange = (hit: SymbolHit, topDex: string): string => (hit.dex === '' ? topDex : hit.dex);

/**
 * The answer of a search from its classes of hits, best class first (exact address or symbol,
 * symbol prefixes, name words and address prefixes): each class by liquidity, then address (byte
 * order); a token keeps its best class; at most `limit`. Sorts the classes in place.
 */
export function rankHits(classes: SymbolHit[][], limit: number): SymbolHit[] {
  const seen = new Set<number>();
  const out: SymbolHit[] = [];
  for (const hits of classes) {
    hits.sort((a, b) => b.liq - a.liq || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    for (const h of hits) {
      if (seen.has(h.id)) continue;
      seen.add(h.id);
      out.push(h);
    }
  }
  return out.slice(0, limit);
}
