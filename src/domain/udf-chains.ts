/**
 * How the UDF datafeed's names meet chains (docs/chains.md, The UDF datafeed and chains): which
 * token lookups a chart's symbol stands for, which market a pair symbol names, and the filter a
 * search's chain puts on store keys. Pure: both engines' symbols repos resolve through these, so
 * they answer alike.
 *
 * The rule: in `X:Y`, an X that is a configured chain (in any letter case, since the Charting
 * Library upper-cases what users type) names that chain, so `base:0x…` is Base's token at that
 * address and `base:WETH` the most liquid WETH on Base; any other X is an exchange (a dex) as
 * before chains. With one chain this is the old rule (the chain name meant every exchange).
 */
import { normalizeAddress } from './address.js';
import { dexKey, mayBeCasedAddress } from './udf-search.js';
import { keyChain, showsChains, storeKey, type Chains } from './chains.js';

/**
 * A lookup to try: a token named `name` (address or symbol) on `dex` ('' = any), on `chain`
 * (null: any chain; a plain address then names the default chain's token, `chain:address` that chain's).
 */
export type ChainLookup = { name: string; dex: string; chain: string | null };

/** The configured chain `x` names, in any letter case; null when it names none. */
export const chainNamed = (x: string, chains: Chains): string | null => chains.list.find((c) => c === x.toLowerCase()) ?? null;

/**
 * A chain filter only where it can tell tokens apart: a deployment of one chain has every token on
 * it, so its lookups stay exactly what they were before chains.
 */
const filterOn = (chain: string, chains: Chains): string | null => (showsChains(chains) ? chain : null);

/**
 * What a chart's symbol is tried as, in order: `CHAIN:NAME` on that chain, `EXCHANGE:NAME` on that
 * dex (an empty exchange means all), then the whole name on every chain (an address, a
 * `chain:address`, or a symbol). Leading and trailing blanks are ignored.
 */
export function chainLookups(name: string, chains: Chains): ChainLookup[] {
  const n = name.trim();
  if (n === '') return [];
  const out: ChainLookup[] = [];
  const colon = n.indexOf(':');
  if (colon >= 0) {
    const x = n.slice(0, colon).trim();
    const rest = n.slice(colon + 1).trim();
    const chain = chainNamed(x, chains);
    if (rest !== '')
      out.push(
        chain === null ? { name: rest, dex: dexKey(x || null, chains.defaultChain), chain: null } : { name: rest, dex: '', chain: filterOn(chain, chains) },
      );
  }
  out.push({ name: n, dex: '', chain: null });
  return out;
}

/**
 * The store keys an address lookup tries: `exact` (the canonical key, null when `name` is no
 * address there) and `folded` (the key to match case-insensitively, for an address the Charting
 * Library upper-cased; null when `name` cannot be one). Without a chain, `name` may be
 * `chain:address` or a plain address of the default chain.
 */
export function addressKeys(name: string, chain: string | null, chains: Chains): { exact: string | null; folded: string | null } {
  if (chain === null) {
    const colon = name.indexOf(':');
    if (colon === -1) return { exact: normalizeAddress(name), folded: mayBeCasedAddress(name) ? name : null };
    const on = name.slice(0, colon);
    if (!chains.list.includes(on)) return { exact: null, folded: null };
    return addressKeys(name.slice(colon + 1), on, chains);
  }
  const address = normalizeAddress(name);
  const prefix = chain === chains.defaultChain ? '' : `${chain}:`;
  return {
    exact: address === null ? null : storeKey({ chain, address }, chains),
    folded: mayBeCasedAddress(name) ? `${prefix}${name}` : null,
  };
}

/**
 * A pair symbol: the store key of the market it names (null when it names no address) and the
 * dex filter ('' = any). `CHAIN:ADDRESS` is that chain's market, `EXCHANGE:ADDRESS` the default
 * chain's market on that dex, a plain address the default chain's, `chain:address` that chain's.
 */
export function chainPairName(name: string, chains: Chains): { dex: string; key: string | null } {
  const n = name.trim();
  const colon = n.indexOf(':');
  if (colon < 0) return { dex: '', key: addressKeys(n, null, chains).exact };
  const x = n.slice(0, colon).trim();
  const rest = n.slice(colon + 1).trim();
  const chain = chainNamed(x, chains);
  if (chain !== null) return { dex: '', key: addressKeys(rest, chain, chains).exact };
  return { dex: dexKey(x || null, chains.defaultChain), key: addressKeys(rest, null, chains).exact };
}

/**
 * The keys of one chain as a filter on a key column, for SQL: `from`/`to` bound a non-default
 * chain's range (`base:` up to `base;`), `plain` keeps only keys without a colon (the default
 * chain's). `none` (no chain asked, or one chain configured) filters nothing.
 */
export type KeyFilter = { from: string; to: string; plain: boolean };
export const NO_KEY_FILTER: KeyFilter = { from: '', to: '', plain: false };

export function keyFilter(chain: string | null, chains: Chains): KeyFilter {
  if (chain === null || !showsChains(chains)) return NO_KEY_FILTER;
  if (chain === chains.defaultChain) return { from: '', to: '', plain: true };
  return { from: `${chain}:`, to: `${chain};`, plain: false }; // ';' follows ':' in code point order
}

/** Whether a key passes a filter (the rule the SQL applies). */
export const keyPasses = (key: string, f: KeyFilter): boolean => (f.from === '' || (key >= f.from && key < f.to)) && (!f.plain || !key.includes(':'));

/**
 * The chain a `/udf/search` asks for: its `chain=`, or a configured chain named as the exchange
 * (by `exchange=` or `CHAIN:TEXT` in the query). `conflict` when two name different chains (then
 * nothing matches). The exchange left is null when it named the chain.
 */
export function searchChain(
  chainParam: string | null,
  exchange: string | null,
  chains: Chains,
): { chain: string | null; exchange: string | null } | 'conflict' {
  const named = exchange === null ? null : chainNamed(exchange, chains);
  if (named === null) return { chain: chainParam, exchange };
  if (chainParam !== null && chainParam !== named) return 'conflict';
  // On one chain the chain name meant every exchange, and the repo's dex rule still says so.
  return showsChains(chains) ? { chain: named, exchange: null } : { chain: chainParam, exchange };
}

/**
 * The store keys a search text is matched against as an address (exact or prefix): the text on the
 * chain asked for, else on every chain (`0x4200…` finds that address on Base and on Ethereum).
 * One chain: the text alone, as before chains.
 */
export function addressForms(text: string, chain: string | null, chains: Chains): string[] {
  if (!showsChains(chains)) return [text];
  const on = chain === null ? chains.list : [chain];
  return on.map((c) => (c === chains.defaultChain ? text : `${c}:${text}`));
}

/**
 * A UDF `description` as a deployment of several chains shows it: the chain of the ticker (a store
 * key) after the name, `Wrapped Ether (base)`, so two tokens of one symbol on two chains read
 * apart in the symbol search and the chart's legend. One chain: the description as before.
 */
export const describedOnChain = (description: string, ticker: string, chains: Chains): string =>
  showsChains(chains) ? `${description} (${keyChain(ticker, chains)})` : description;

/** A `/udf/search` item with its `chain` (after the UDF fields) when the deployment serves several. */
export function searchItemOnChain<T extends { description: string; ticker: string }>(item: T, chains: Chains): T & { chain?: string } {
  if (!showsChains(chains)) return item;
  return { ...item, description: describedOnChain(item.description, item.ticker, chains), chain: keyChain(item.ticker, chains) };
}
