/** Dependencies, query parameters and errors shared by the UDF routes. */
import type { z } from 'zod';
import { ApiError } from '../../errors.js';
import { enumParam, textParam } from '../validate.js';
import type { Resolved, SymbolsRepo } from '../../store/symbols-repo.js';
import type { CandlesRepo } from '../../store/candles-repo.js';
import type { WindowRepo } from '../../store/window-repo.js';
import type { ResponseCache } from '../response-cache.js';
import type { Clock } from '../../domain/clock.js';

/** What the UDF routes are built from. */
export type UdfDeps = { clock: Clock; symbols: SymbolsRepo; candles: CandlesRepo; windows: WindowRepo; cache: ResponseCache };

/** The longest symbol name looked up (an address is at most 44 characters; a symbol 32). */
export const MAX_NAME = 200;

/** A symbol name: an address, a symbol or EXCHANGE:SYMBOL. */
export const symbolParam = () => textParam(1, MAX_NAME);

/**
 * Parameters the adapter adds to /symbols and /history: accepted, and ignored (every price here is
 * in USD, and there are no units).
 */
export const adapterParams = {
  currencyCode: enumParam(['USD'] as const).optional(),
  unitId: textParam(1, 64).optional(),
} satisfies Record<string, z.ZodType>;

export const unknownSymbol = (): ApiError => new ApiError(404, 'token_not_found', 'unknown symbol', { param: 'symbol' });

/** The token a chart names, or 404 token_not_found ("unknown symbol" in the UDF form). */
export function resolveOr404(symbols: SymbolsRepo, name: string): Resolved {
  const found = symbols.resolve(name);
  if (found === null) throw unknownSymbol();
  return found;
}
