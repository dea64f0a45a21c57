/**
 * The batch validator on its own (src/services/ingest-validator.ts): which names a record may use
 * (stored, or defined on an earlier line), and how often it asks the store, with a lookup that
 * answers from sets and counts each question.
 */
import { describe, expect, it } from 'vitest';
import { addNames, createValidator, noNames, type StoredLookup } from '../../src/services/ingest-validator.js';
import { aHolder, aMarket, aToken, aTrade, homeMarket, marketOf } from '../helpers/builders.js';

/** A lookup over fixed sets that counts how often each address is asked. */
function lookup(tokens: string[], markets: string[]) {
  const asked = { token: new Map<string, number>(), market: new Map<string, number>() };
  const count = (m: Map<string, number>, a: string) => m.set(a, (m.get(a) ?? 0) + 1);
  const stored: StoredLookup = {
    token: (a) => (count(asked.token, a), tokens.includes(a)),
    market: (a) => (count(asked.market, a), markets.includes(a)),
  };
  return { stored, asked };
}

const errorsOf = (stored: StoredLookup, records: readonly unknown[]) => {
  const v = createValidator(stored);
  records.forEach((r, i) => v.check(i + 1, r));
  return v.errors;
};

describe('createValidator', () => {
  it('refuses a trade of a market neither stored nor defined on an earlier line, as it refuses an unknown token', () => {
    const tok = aToken();
    const { stored } = lookup([tok.address], []);
    const later = homeMarket(tok.address);
    expect(errorsOf(stored, [aTrade(tok.address), later, aTrade(tok.address)])).toEqual([{ line: 1, error: `unknown market ${marketOf(tok.address)}` }]);
    // The token is checked first: a trade naming neither is refused for its token.
    const stranger = aToken().address;
    expect(errorsOf(stored, [aTrade(stranger)])).toEqual([{ line: 1, error: `unknown token ${stranger}` }]);
  });

  it('accepts a trade of a stored market, or of one defined earlier in the batch', () => {
    const tok = aToken();
    const m = aMarket(tok.address);
    const { stored } = lookup([tok.address], [marketOf(tok.address)]);
    expect(errorsOf(stored, [aTrade(tok.address), m, aTrade(tok.address, { market: m.address }), aHolder(tok.address)])).toEqual([]);
  });

  it('does not count a refused market record as defining its market', () => {
    const tok = aToken();
    const { stored } = lookup([tok.address], []);
    const bad = homeMarket(tok.address, { dex: '' });
    expect(errorsOf(stored, [bad, aTrade(tok.address)])).toEqual([
      { line: 1, error: 'dex must not be empty' },
      { line: 2, error: `unknown market ${marketOf(tok.address)}` },
    ]);
  });

  it('asks the store once per distinct address in a batch of 100,000 trades over three markets', () => {
    const tok = aToken();
    const markets = [aMarket(tok.address), aMarket(tok.address), aMarket(tok.address)].map((m) => m.address);
    const { stored, asked } = lookup([tok.address], markets);
    const v = createValidator(stored);
    for (let i = 0; i < 100_000; i++) v.check(i + 1, aTrade(tok.address, { market: markets[i % 3]!, blockTime: i }));
    expect(v.invalid).toBe(0);
    expect([...asked.token.values()]).toEqual([1]);
    expect(new Map(asked.market)).toEqual(new Map(markets.map((m) => [m, 1])));
  });

  it('matches an EVM market however it is spelled, as the store keeps it lower-cased', () => {
    const tok = '0x' + 'ab'.repeat(20);
    const market = '0x' + 'cd'.repeat(20);
    const { stored } = lookup([tok], [market]);
    expect(errorsOf(stored, [aTrade(tok.toUpperCase().replace('0X', '0x'), { market: market.toUpperCase().replace('0X', '0x') })])).toEqual([]);
  });
});

describe('addNames', () => {
  it('collects the tokens records name and the markets trades name, lower-casing EVM addresses', () => {
    const names = noNames();
    const tok = aToken();
    const evmMarket = '0x' + 'EF'.repeat(20);
    for (const r of [
      tok,
      aMarket(tok.address),
      aTrade(tok.address),
      aTrade(tok.address, { market: evmMarket }),
      aHolder(tok.address),
      null,
      'x',
      { token: 5 },
    ]) {
      addNames(names, r);
    }
    expect([...names.tokens]).toEqual([tok.address]);
    // A market record's own address is defined by it, not looked up.
    expect([...names.markets]).toEqual([marketOf(tok.address), evmMarket.toLowerCase()]);
  });
});
