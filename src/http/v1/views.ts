/**
 * The read views of one app, made once by createApp: the tokens and market routers share the
 * response cache, so a token's window figures computed for an overview serve discovery in the
 * same second too.
 */
import type { Config } from '../../config.js';
import type { Store } from '../../store/db.js';
import type { Clock } from '../../domain/clock.js';
import type { ResponseCache } from '../response-cache.js';
import { createTokensRepo } from '../../store/tokens-repo.js';
import { createTokenViews } from './token-views.js';
import { createDiscoveryViews } from './discovery-views.js';

export function createViews(deps: { config: Config; store: Store; clock: Clock; cache: ResponseCache }) {
  const tokens = createTokensRepo(deps.store.db);
  const tokenViews = createTokenViews(deps);
  return { cache: deps.cache, tokens, token: tokenViews, discovery: createDiscoveryViews(deps.store, tokens, tokenViews, deps.cache) };
}

export type Views = ReturnType<typeof createViews>;
