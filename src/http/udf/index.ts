/** TradingView UDF datafeed (DESIGN.md section 10). */
import { ApiRouter } from '../route.js';
import type { AppDeps } from '../types.js';

export function udfRouter(_deps: AppDeps): ApiRouter {
  return new ApiRouter();
}
