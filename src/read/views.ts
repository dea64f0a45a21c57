/**
 * The read views of one app, made once by createApp: the tokens and market routers share the
 * response cache, so a token's window figures computed for an overview serve discovery in the
 * same second too. Every read goes through the storage boundary (src/store/port/repos.ts).
 */
import type { Config } from '../config.js';
import type { StoreHandle } from '../store/port/handle.js';
import type { Repos } from '../store/port/repos.js';
import type { Clock } from '../domain/clock.js';
import type { ResponseCache } from './response-cache.js';
import { createTokenViews } from './token-views.js';
import { createDiscoveryViews } from './discovery-views.js';
import { withTokenCache } from './token-cache.js';

export function createViews(deps: { config: Config; store: StoreHandle; clock: Clock; cache: ResponseCache; repos: Repos }) {
  // Token rows by address from memory, kept with the answers (CACHE=off measures without either).
  const tokens = deps.cache.enabled ? withTokenCache(deps.repos.tokens, deps.store) : deps.repos.tokens;
  const tokenViews = createTokenViews(deps);
  const discovery = createDiscoveryViews(deps.store, { ...deps.repos, tokens }, tokenViews, deps.cache, deps.config.chains);
  return { cache: deps.cache, tokens, token: tokenViews, discovery };
}

export type Views = ReturnType<typeof createViews>;
