/** The dashboard and its cookie-authenticated JSON routes (DESIGN.md section 11). */
import { ApiRouter } from './route.js';
import type { AppDeps } from './types.js';

export function dashboardRouter(_deps: AppDeps): ApiRouter {
  return new ApiRouter();
}
