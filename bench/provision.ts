/**
 * Accounts for a benchmark store, made through the services as an operator would with the CLI:
 * an enterprise tenant, one key with the `read` and `ingest` scopes, and the hot token registered
 * for that tenant so that every ingest batch also writes events. The enterprise plan's rate is
 * raised in the bench copy of the store (plans are editable in the store), so the load generator
 * measures the service and not the limiter's refusals.
 */
import { openStore, type Store } from '../src/store/sqlite/db.js';
import { createServices, type Services } from '../src/services/index.js';

/** Requests per minute of the plan during the benchmark: far above what one machine can send. */
export const BENCH_PLAN_RPM = 1_000_000_000;

export type Provisioned = { tenantId: string; secret: string; registered: boolean };

type Registering = { register(tenantId: string, address: string): Promise<unknown> };

/** Registers `address` for the tenant when the services offer subscriptions; false otherwise. */
export async function registerToken(services: Services, tenantId: string, address: string): Promise<boolean> {
  const subscriptions = (services as { subscriptions?: Registering }).subscriptions;
  if (subscriptions === undefined) return false;
  await subscriptions.register(tenantId, address);
  return true;
}

/** Creates the bench tenant and key in an open store; the hot token is registered to it. */
export async function provisionStore(store: Store, services: Services, hot: string): Promise<Provisioned> {
  const tenant = await services.accounts.createTenant({ name: 'bench', plan: 'enterprise' });
  const { secret } = await services.accounts.createKey(tenant.id, { name: 'bench', scopes: ['read', 'ingest'] });
  store.db.prepare("UPDATE plans SET requests_per_minute = ? WHERE name = 'enterprise'").run(BENCH_PLAN_RPM);
  const registered = await registerToken(services, tenant.id, hot);
  return { tenantId: tenant.id, secret, registered };
}

/** Provisions the store file at `path` (closed again afterwards). */
export async function provision(path: string, anchorMs: number, hot: string): Promise<Provisioned> {
  const store = openStore(path);
  try {
    const services = createServices({ store, clock: { now: () => anchorMs } });
    return await provisionStore(store, services, hot);
  } finally {
    store.close();
  }
}
