/**
 * The services of one store: built once per app (and by the CLI) so that every entry point
 * shares the same write paths and the same caches.
 */
import type { Store } from '../store/db.js';
import type { Clock } from '../domain/clock.js';
import { createIngest } from './ingest.js';
import { createAccounts } from './accounts.js';
import { ingestHooks } from './ingest-hooks.js';
import { createSubscriptions } from './subscriptions.js';

/** `config.webhookAllowPrivate` defaults to false (webhooks to private addresses are refused). */
export function createServices(deps: { store: Store; clock: Clock; config?: { webhookAllowPrivate: boolean } }) {
  const ingest = createIngest({ ...deps, hooks: ingestHooks(deps) });
  const accounts = createAccounts(deps);
  const subscriptions = createSubscriptions(deps);
  return { ingest, accounts, subscriptions };
}

export type Services = ReturnType<typeof createServices>;
