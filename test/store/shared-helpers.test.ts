/** The engine-free store helpers of src/store/shared/: LIKE escaping, the NUL and control-character rules, key scopes. */
import { describe, expect, it } from 'vitest';
import { escapeLike, holdsControl, holdsNul } from '../../src/store/shared/sql-text.js';
import { scopesColumn, withScopes } from '../../src/store/shared/key-scopes.js';

describe('sql-text', () => {
  it('escapes LIKE wildcards and the escape character', () => {
    expect(escapeLike('50%_a\\b')).toBe('50\\%\\_a\\\\b');
  });

  it('tells NULs and control characters', () => {
    expect(holdsNul('ab\u0000')).toBe(true);
    expect(holdsNul('ab\u0001')).toBe(false);
    expect(holdsControl('ab\u001f')).toBe(true);
    expect(holdsControl('ab ~')).toBe(false);
  });
});

describe('key-scopes', () => {
  it('stores scopes as one comma-separated column and reads them back, none as empty', () => {
    expect(scopesColumn(['read', 'ingest'])).toBe('read,ingest');
    expect(scopesColumn([])).toBe('');
    expect(withScopes({ id: 'k', scopes: 'read,ingest' })).toEqual({ id: 'k', scopes: ['read', 'ingest'] });
    expect(withScopes({ id: 'k', scopes: '' })).toEqual({ id: 'k', scopes: [] });
  });
});
