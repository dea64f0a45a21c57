import { describe, expect, it } from 'vitest';
import { priceChangePct, product } from '../../src/domain/windows.js';

describe('window helpers', () => {
  it('gives the change in percent, null without a price or a positive base', () => {
    expect(priceChangePct(3, 2)).toBe(50);
    expect(priceChangePct(1, 4)).toBe(-75);
    expect(priceChangePct(null, 2)).toBeNull();
    expect(priceChangePct(2, null)).toBeNull();
    expect(priceChangePct(2, 0)).toBeNull();
  });

  it('multiplies, null when either side is null', () => {
    expect(product(2, 3)).toBe(6);
    expect(product(null, 3)).toBeNull();
    expect(product(2, null)).toBeNull();
  });
});
