/** The text rules of /v1/search: case folding, short grams, prefix bounds and page seeks. */
import { describe, expect, it } from 'vitest';
import { foldCase, prefixEnd, prefixSeek, shortGrams, TRIGRAM } from '../../src/domain/search-text.js';

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
