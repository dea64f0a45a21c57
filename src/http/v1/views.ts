/**
 * One set of read views per app: the tokens and market routers share the response cache, so a
 * token's window figures computed for an overview serve discovery in the same second too.
 */
import type { AppDeps } from '../types.js';
import { createTokensRepo } from '../../store/tokens-repo.js';
import { createTokenViews } from './token-views.js';
import { createDiscoveryViews } from './discovery-views.js';

function createViews(deps: AppDeps) {
  const cache = deps.cache;
  const tokens = createTokensRepo(deps.store.db);
  const tokenViews = createTokenViews(deps, cache);
  return { cache, tokens, token: tokenViews, discovery: createDiscoveryViews(deps.store, tokens, tokenViews, cache) };
}

export type Views = ReturnType<typeof createViews>;

const byDeps = new WeakMap<AppDeps, Views>();

export function viewsFor(deps: AppDeps): Views {
  let v = byDeps.get(deps);
  if (v === undefined) byDeps.set(deps, (v = createViews(deps)));
  return v;
}
