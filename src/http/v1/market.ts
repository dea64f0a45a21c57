/** Discovery, search and prices (DESIGN.md section 6). */
import { ApiRouter } from '../route.js';
import type { AppDeps } from '../types.js';

export function marketRouter(_deps: AppDeps): ApiRouter {
  return new ApiRouter();
}
