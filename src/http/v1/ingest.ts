/** POST /v1/ingest (DESIGN.md section 9). */
import { ApiRouter } from '../route.js';
import type { AppDeps } from '../types.js';

export function ingestRouter(_deps: AppDeps): ApiRouter {
  return new ApiRouter();
}
