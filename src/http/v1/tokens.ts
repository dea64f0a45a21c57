/** Token reads: overview, trades, candles, ranked lists (DESIGN.md section 5). */
import { ApiRouter } from '../route.js';
import type { AppDeps } from '../types.js';

export function tokensRouter(_deps: AppDeps): ApiRouter {
  return new ApiRouter();
}
