/**
 * Holder balance folding (src/domain/erc20-holders.ts) against a naive per-owner sum.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { foldBalances, ZERO_ADDRESS, type BalanceMove } from '../../src/domain/erc20-holders.js';

describe('foldBalances', () => {
  it('mints, transfers, burns, deposits and withdrawals', () => {
    const b = new Map<string, bigint>();
    const r = foldBalances(b, [
      { kind: 'transfer', from: ZERO_ADDRESS, to: '0xa', value: 100n },
      { kind: 'transfer', from: '0xa', to: '0xb', value: 30n },
      { kind: 'deposit', to: '0xc', value: 5n },
      { kind: 'withdrawal', from: '0xc', value: 2n },
      { kind: 'transfer', from: '0xb', to: ZERO_ADDRESS, value: 10n },
    ]);
    expect(Object.fromEntries(b)).toEqual({ '0xa': 70n, '0xb': 20n, '0xc': 3n });
    expect(r).toEqual({ changed: new Set(['0xa', '0xb', '0xc']), supplyMoved: true });
  });
  it('a plain transfer moves no supply; a self-transfer changes no balance but touches its owner', () => {
    const b = new Map<string, bigint>([['0xa', 5n]]);
    expect(foldBalances(b, [{ kind: 'transfer', from: '0xa', to: '0xa', value: 5n }])).toEqual({ changed: new Set(['0xa']), supplyMoved: false });
    expect(b.get('0xa')).toBe(5n);
  });
  it('equals a naive sum of what each owner received minus what it sent', () => {
    const owner = fc.constantFrom(ZERO_ADDRESS, '0x1', '0x2', '0x3');
    const move: fc.Arbitrary<BalanceMove> = fc.oneof(
      fc.record({ kind: fc.constant('transfer' as const), from: owner, to: owner, value: fc.bigInt({ min: 0n, max: 10n ** 30n }) }),
      fc.record({ kind: fc.constant('deposit' as const), to: owner, value: fc.bigInt({ min: 0n, max: 10n ** 30n }) }),
      fc.record({ kind: fc.constant('withdrawal' as const), from: owner, value: fc.bigInt({ min: 0n, max: 10n ** 30n }) }),
    );
    fc.assert(
      fc.property(fc.array(move, { maxLength: 50 }), (moves) => {
        const b = new Map<string, bigint>();
        // Applied in two parts: folding is incremental.
        foldBalances(b, moves.slice(0, 20));
        foldBalances(b, moves.slice(20));
        const naive = new Map<string, bigint>();
        const add = (o: string, v: bigint) => o !== ZERO_ADDRESS && naive.set(o, (naive.get(o) ?? 0n) + v);
        for (const m of moves) {
          if (m.kind !== 'deposit') add(m.from, -m.value);
          if (m.kind !== 'withdrawal') add(m.to, m.value);
        }
        for (const [o, v] of naive) if ((b.get(o) ?? 0n) !== v) return false;
        return !b.has(ZERO_ADDRESS);
      }),
    );
  });
});
