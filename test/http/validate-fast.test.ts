/**
 * The plain checks of src/http/validate.ts against zod itself: for any query, a route's parser
 * answers exactly what zod answers (the same values, the same keys, the same 400), whether the
 * plain checks or zod decided it. The reference is the same schema with an object-level refine
 * that always holds, which leaves zod's answer unchanged and turns the plain checks off.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { addressParam, addressPathParam, compileParams, enumParam, intParam, textParam, type QuerySchema, type RawParams } from '../../src/http/validate.js';
import { ApiError } from '../../src/errors.js';

const ADDRESS = 'ppD9scN43Ycs2Ue6T9Qf8RSsfuLyMQPEVwMrqkg7WGj3';
const EVM = '0xAbCdEf0123456789abcdef0123456789ABCDEF01';

const history = z.object({
  symbol: textParam(1, 200),
  resolution: enumParam(['1', '5', '60', 'D']),
  from: intParam(0, 4_000_000_000).optional(),
  to: intParam(0, 4_000_000_000),
  countback: intParam(0, Number.MAX_SAFE_INTEGER).optional(),
  currencyCode: textParam(1, 32).prefault('USD').describe('the quote'),
  unitId: textParam(1, 64).optional(),
});
const list = z.object({
  token: addressParam().optional().describe('a token'),
  limit: intParam(1, 100).prefault('20'),
  side: enumParam(['buy', 'sell']).optional(),
});
const path = z.object({ address: addressPathParam() });

/** What a parser answers: its value (with its own keys), or its error's code, parameter and message. */
function answer(parse: (input: RawParams) => unknown, input: RawParams): unknown {
  try {
    const value = parse(input) as Record<string, unknown>;
    return { keys: Object.keys(value), value };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { code: err.code, param: err.param, message: err.message };
  }
}

const reference = (schema: QuerySchema) => compileParams(schema.refine(() => true) as unknown as QuerySchema);

const value = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '1',
    '5',
    '60',
    'D',
    'W',
    '007',
    '-1',
    '1.5',
    '1e3',
    ' 1',
    '20',
    '100',
    '101',
    '1750000000',
    '99999999999999999',
    'USD',
    'buy',
    'sell',
    ADDRESS,
    EVM,
    EVM.toLowerCase(),
    'x'.repeat(201),
    '😀',
  ),
  fc.string({ maxLength: 8 }),
  fc.integer({ min: -5, max: 5_000_000_000 }).map(String),
);
const query = (names: string[]) =>
  fc.dictionary(fc.constantFrom(...names, 'other'), fc.oneof(value, fc.constant(undefined)), { maxKeys: names.length + 1 }) as fc.Arbitrary<RawParams>;

describe('plain parameter checks', () => {
  for (const [name, schema] of [
    ['a chart history query', history],
    ['a list query with defaults', list],
    ['a path address', path],
  ] as const) {
    it(`answer as zod does for ${name}`, () => {
      const fast = compileParams(schema as QuerySchema);
      const slow = reference(schema as QuerySchema);
      fc.assert(
        fc.property(query(Object.keys(schema.shape)), (input) => {
          expect(answer(fast, input)).toEqual(answer(slow, input));
        }),
        { numRuns: 2000 },
      );
    });
  }

  it('give a valid poll its values, leaving out what was not sent, and a default where one is declared', () => {
    const parse = compileParams(history);
    const out = parse({ symbol: ADDRESS, resolution: '1', to: '1750000000', countback: '2', currencyCode: 'USD', extra: 'x' });
    expect(out).toStrictEqual({ symbol: ADDRESS, resolution: '1', to: 1750000000, countback: 2, currencyCode: 'USD' });
    expect(compileParams(list)({ limit: '' })).toStrictEqual({ limit: 20 });
    expect(compileParams(path)({ address: EVM })).toStrictEqual({ address: EVM.toLowerCase() });
  });

  it('leave the 400s to zod, with the messages they always had', () => {
    const parse = compileParams(history);
    expect(answer(parse, { symbol: ADDRESS, resolution: '1', to: '12.5' })).toEqual({
      code: 'invalid_parameter',
      param: 'to',
      message: 'to must be an integer from 0 to 4000000000',
    });
    expect(answer(parse, { symbol: ADDRESS, resolution: '2', to: '1' })).toEqual({
      code: 'invalid_parameter',
      param: 'resolution',
      message: 'resolution must be one of 1, 5, 60, D',
    });
    expect(answer(parse, { resolution: '1', to: '1' })).toEqual({ code: 'invalid_parameter', param: 'symbol', message: 'symbol is required' });
    expect(answer(compileParams(path), { address: 'nope' })).toMatchObject({ code: 'invalid_address' });
  });
});
