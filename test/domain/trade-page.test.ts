/** Where a page of trades starts in trade order. */
import { describe, expect, it } from 'vitest';
import { pageStart } from '../../src/domain/trade-page.js';

describe('pageStart', () => {
  it('starts after the cursor, else before `before`, else before every trade', () => {
    expect(pageStart({ blockTime: 100, id: 7 }, 50)).toEqual({ blockTime: 100, id: 7 });
    expect(pageStart(null, 50)).toEqual({ blockTime: 50, id: 0 });
    expect(pageStart(null, null)).toEqual({ blockTime: 2 ** 48 - 1, id: 0 });
    expect(pageStart(null, undefined)).toEqual({ blockTime: 2 ** 48 - 1, id: 0 });
  });
});
