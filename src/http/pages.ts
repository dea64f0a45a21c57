/** Pages: live chart, embeddable chart, static assets (DESIGN.md section 11). */
import { ApiRouter } from './route.js';
import type { AppDeps } from './types.js';

export function pagesRouter(_deps: AppDeps): ApiRouter {
  return new ApiRouter();
}
