/** Account and API keys: /v1/me, /v1/keys (DESIGN.md section 7). */
import { ApiRouter } from '../route.js';
import type { AppDeps } from '../types.js';

export function accountRouter(_deps: AppDeps): ApiRouter {
  return new ApiRouter();
}
