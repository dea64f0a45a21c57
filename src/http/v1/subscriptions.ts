/** Subscriptions and events (DESIGN.md section 9). */
import { ApiRouter } from '../route.js';
import type { AppDeps } from '../types.js';

export function subscriptionsRouter(_deps: AppDeps): ApiRouter {
  return new ApiRouter();
}
