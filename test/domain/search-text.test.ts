/** The text rules of /v1/search: case folding, short grams, prefix bounds and page seeks. */
import { describe, expect, it } from 'vitest';
import { TRIGRAM, foldCase, prefixEnd, prefixSeek, searchIndexChange, shortGrams } from '../../src/domain/search-text.js';

describe('foldCase', () => {
  it('folds beyond ASCII', () => {
    expect(foldCase('ÄPFEL Coin')).toBe('äpfel coin');
  });
});

describe('shortGrams', () => {
  it('holds every distinct one- and two-code-point substring', () => {
    expect([...shortGrams('abab')]).toEqual(['a', 'ab', 'b', 'ba']);
    expect([...shortGrams('😀x')]).toEqual(['😀', '😀x', 'x']);
    expect(shortGrams('').size).toBe(0);
  });
});

describe('prefixEnd and prefixSeek', () => {
  it('bounds every symbol with the prefix and none past it', () => {
    expect('bonk\u{10FFFE}' < prefixEnd('bonk')).toBe(true);
    expect('bonl' < prefixEnd('bonk')).toBe(false);
  });

  it('seeks to the prefix when the last page ended below it, else to where it ended', () => {
    expect(prefixSeek('bo', { sym: '', address: '' })).toEqual({ sym: 'bo', address: '' });
    expect(prefixSeek('bo', { sym: 'bonk', address: 'Z1' })).toEqual({ sym: 'bonk', address: 'Z1' });
  });

  it('needs three characters for the trigram index', () => {
    expect(TRIGRAM).toBe(3);
  });
});

describe('searchIndexChange', () => {
  const token = { address: 'A1', symbol: 'BoNK', name: 'Bonk Inu' };

  it('writes a new row with every short gram of its folded name', () => {
    expect(searchIndexChange(token, undefined)).toEqual({
      row: { address: 'A1', sym: 'bonk', name: 'bonk inu' },
      names: { drop: null, add: ['b', 'bo', 'o', 'on', 'n', 'nk', 'k', 'k ', ' ', ' i', 'i', 'in', 'nu', 'u'] },
    });
  });

  it('writes nothing for a row that is up to date, and only the row for a new symbol', () => {
    expect(searchIndexChange(token, { sym: 'bonk', name: 'bonk inu' })).toBeNull();
    expect(searchIndexChange(token, { sym: 'bonk2', name: 'bonk inu' })).toEqual({ row: { address: 'A1', sym: 'bonk', name: 'bonk inu' }, names: null });
  });

  it("drops the old name's grams and adds the new one's when the name changed", () => {
    expect(searchIndexChange({ ...token, name: 'Ab' }, { sym: 'bonk', name: 'xy' })).toEqual({
      row: { address: 'A1', sym: 'bonk', name: 'ab' },
      names: { drop: ['x', 'xy', 'y'], add: ['a', 'ab', 'b'] },
    });
  });
});
