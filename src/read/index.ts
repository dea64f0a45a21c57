/**
 * The read models of one store (docs/architecture.md, Read models): the response cache, the /v1
 * views and boards, the history series, the symbol names kept in memory and the live stream's
 * reads. None touches Koa, so they are built once here and handed to the routers, the stream hub
 * and any worker without HTTP; each keeps itself up to date through the store's change listeners
 * and the ingest hooks it adds.
 */
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import type { StoreHandle } from '../store/port/handle.js';
import type { Services } from '../services/index.js';
import type { StreamReads } from '../stream/types.js';
import { createResponseCache, type ResponseCache } from './response-cache.js';
import { createViews, type Views } from './views.js';
import { createHistoryCache, type HistoryCache } from './history-cache.js';
import { withResolveCache, type KnownName } from './resolve-cache.js';
import { streamSource } from './stream-source.js';

export type ReadModels = {
  /** Whole answers, dropped by store changes (CACHE=off: none kept). */
  cache: ResponseCache;
  /** The /v1 read views (tokens, overview, discovery), sharing `cache`. */
  views: Views;
  /** The newest bars of each chart series, for history answers (sharing `cache`). */
  history: HistoryCache;
  /** Symbol resolution kept in memory, with the names it holds (null with CACHE=off: resolved in the store). */
  symbols: (Services['repos']['symbols'] & { known: KnownName }) | null;
  /** What the live stream reads, through the same views as the routes. */
  streamReads: StreamReads;
};

export function createReadModels(deps: { config: Config; store: StoreHandle; clock: Clock; services: Services }): ReadModels {
  const { config, store, clock, services } = deps;
  const cache = createResponseCache(store, { enabled: config.responseCache, maxBytes: config.cacheMaxBytes });
  const views = createViews({ config, store, clock, cache, repos: services.repos });
  const history = createHistoryCache({ config, store, services, cache });
  // Resolved names live in memory with the answers (CACHE=off measures without either).
  const symbols = cache.enabled ? withResolveCache(services.repos.symbols, store) : null;
  return { cache, views, history, symbols, streamReads: streamSource({ clock, store, services, views }) };
}
