/**
 * Chains of one deployment: their names, which is the default, and how an
 * address names a token or market on one of them. A plain address is on the default chain;
 * `chain:address` is on that chain. Pure rules; the configuration reads `CHAINS` and `CHAIN` and
 * hands them here, the routes and the stream parse what clients send through these.
 */
import { normalizeAddress } from './address.js';

/** A chain's name: lower case, starting with a letter, at most 32 characters (`base`, `solana`, `arbitrum-one`). */
const CHAIN_NAME = /^[a-z][a-z0-9-]{0,31}$/;

export const isChainName = (value: string): boolean => CHAIN_NAME.test(value);

/** The chains of a deployment, the first being the default. */
export type Chains = { readonly list: readonly string[]; readonly defaultChain: string };

/**
 * The chains from the two settings: `CHAINS` (comma-separated, first = default) or `CHAIN` alone
 * (a one-chain `CHAINS`), else `solana`. Both set and disagreeing on the default, a bad or repeated
 * name, or an empty list: an error naming the setting, which stops start-up.
 */
export function chainsFrom(settings: { chains?: string; chain?: string }): Chains | { error: string } {
  const chain = settings.chain?.trim();
  if (chain !== undefined && chain !== '' && !isChainName(chain))
    return { error: `CHAIN ${JSON.stringify(chain)} is not a chain name (a-z, 0-9, -; starting with a letter; at most 32)` };
  if (settings.chains === undefined || settings.chains.trim() === '') {
    const only = chain === undefined || chain === '' ? 'solana' : chain;
    return { list: [only], defaultChain: only };
  }
  const list = settings.chains.split(',').map((c) => c.trim());
  for (const name of list) {
    if (!isChainName(name))
      return { error: `CHAINS names ${JSON.stringify(name)}, which is not a chain name (a-z, 0-9, -; starting with a letter; at most 32)` };
  }
  const seen = new Set<string>();
  for (const name of list) {
    if (seen.has(name)) return { error: `CHAINS names ${name} twice` };
    seen.add(name);
  }
  const first = list[0]!;
  if (chain !== undefined && chain !== '' && chain !== first) {
    return { error: `CHAIN is ${chain} but CHAINS starts with ${first}: the default chain is CHAINS' first; set one of them` };
  }
  return { list, defaultChain: first };
}

/** A token or market as named by a client: its chain and its canonical address. */
export type ChainAddress = { chain: string; address: string };

/**
 * What a client's address names: `address` on the default chain, `chain:address` on that chain.
 * An unknown chain or a malformed address is an error the caller answers with 400
 * `invalid_address`.
 */
export function parseChainAddress(value: string, chains: Chains): ChainAddress | { error: string } {
  const colon = value.indexOf(':');
  if (colon === -1) {
    const address = normalizeAddress(value);
    return address === null ? { error: 'not a token address' } : { chain: chains.defaultChain, address };
  }
  const chain = value.slice(0, colon);
  if (!chains.list.includes(chain)) return { error: `unknown chain ${JSON.stringify(chain.slice(0, 40))} (chains: ${chains.list.join(', ')})` };
  const address = normalizeAddress(value.slice(colon + 1));
  return address === null ? { error: `not a token address on ${chain}` } : { chain, address };
}

/**
 * A `/udf` symbol name: `X:Y` is a chain-qualified address when X is a chain of the deployment and Y
 * a well-formed address, otherwise `EXCHANGE:SYMBOL` as before chains; a name without a colon is
 * an address on the default chain or a symbol.
 */
export type UdfSymbolName =
  { kind: 'address'; chain: string; address: string } | { kind: 'exchange'; exchange: string; symbol: string } | { kind: 'plain'; text: string };

export function parseUdfSymbolName(value: string, chains: Chains): UdfSymbolName {
  const colon = value.indexOf(':');
  if (colon === -1) {
    const address = normalizeAddress(value);
    return address === null ? { kind: 'plain', text: value } : { kind: 'address', chain: chains.defaultChain, address };
  }
  const x = value.slice(0, colon);
  const y = value.slice(colon + 1);
  if (chains.list.includes(x)) {
    const address = normalizeAddress(y);
    if (address !== null) return { kind: 'address', chain: x, address };
  }
  return { kind: 'exchange', exchange: x, symbol: y };
}

/** How an answer names a token: the plain address on the default chain, `chain:address` elsewhere. */
export const chainTicker = (ref: ChainAddress, chains: Chains): string => (ref.chain === chains.defaultChain ? ref.address : `${ref.chain}:${ref.address}`);

/** A key for caches and subscriptions that never confuses one chain's address with another's. */
export const chainKey = (ref: ChainAddress): string => `${ref.chain}:${ref.address}`;

/**
 * The store's key of a token or market (docs/chains.md, How chains are stored): its chain ticker,
 * the plain address on the default chain and `chain:address` on any other. The default chain is
 * fixed when a store is first opened with chains (a store made before them holds only plain
 * addresses, all on it), so a key never changes meaning; caches, cursors, stream subscriptions
 * and events keyed by it never confuse one chain's address with another's.
 */
export const storeKey = chainTicker;

/** The chain and address a store key names (a key holds no colon on the default chain). */
export function keyParts(key: string, chains: Chains): ChainAddress {
  const colon = key.indexOf(':');
  return colon === -1 ? { chain: chains.defaultChain, address: key } : { chain: key.slice(0, colon), address: key.slice(colon + 1) };
}

/** The bare address of a store key (what an answer's `address` shows). */
export const keyAddress = (key: string): string => {
  const colon = key.indexOf(':');
  return colon === -1 ? key : key.slice(colon + 1);
};

/** The chain of a store key. */
export const keyChain = (key: string, chains: Chains): string => {
  const colon = key.indexOf(':');
  return colon === -1 ? chains.defaultChain : key.slice(0, colon);
};

/** What a client's address names, as a store key, or the reason it names nothing (400 `invalid_address`). */
export function parseAddressKey(value: string, chains: Chains): string | { error: string } {
  const ref = parseChainAddress(value, chains);
  return 'error' in ref ? ref : storeKey(ref, chains);
}

/** Whether answers carry `chain`: only when the deployment serves several chains, so a one-chain deployment answers byte for byte as before (docs/chains.md). */
export const showsChains = (chains: Chains): boolean => chains.list.length > 1;

/**
 * How an answer names a stored token or market: `{ address }`, with `chain` after it when the
 * deployment serves several chains.
 */
export function addressFields(key: string, chains: Chains): { address: string; chain?: string } {
  if (!showsChains(chains)) return { address: key };
  const ref = keyParts(key, chains);
  return { address: ref.address, chain: ref.chain };
}

/**
 * The keys of one chain as a range of the store's key order, for an index seek: `[from, to)` for a
 * chain other than the default (its keys all start with `chain:`); null for the default chain,
 * whose keys are those without a colon (callers filter those with keyChain).
 */
export function chainKeyRange(chain: string, chains: Chains): { from: string; to: string } | null {
  if (chain === chains.defaultChain) return null;
  return { from: `${chain}:`, to: `${chain};` }; // ';' follows ':' in code point order
}

/** One-chain chains, for callers (tests, tools) with no configuration: `solana`, or the name given. */
export const oneChain = (chain = 'solana'): Chains => ({ list: [chain], defaultChain: chain });
