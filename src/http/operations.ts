/** Operations: /metrics, /openapi.json, /docs. */
import { ApiRouter, type RouteSpec } from './route.js';
import type { AppDeps } from './types.js';

export function operationsRouter(_deps: AppDeps, _specs: readonly RouteSpec[]): ApiRouter {
  return new ApiRouter();
}
