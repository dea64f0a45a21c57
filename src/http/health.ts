/** GET /healthz: the process is up and the store answers. Not counted by the limiter. */
import { ApiRouter } from './route.js';
import type { AppDeps } from './types.js';

export function healthRouter(deps: AppDeps): ApiRouter {
  const ping = deps.store.db.prepare('SELECT 1').pluck();
  return new ApiRouter().add(
    { method: 'get', path: '/healthz', summary: 'Liveness and store check', access: 'internal', tag: 'operations' },
    (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      return { status: 'ok', store: ping.get() === 1 ? 'ok' : 'error' };
    },
  );
}
