/**
 * What the subscription tests read or set below the API, on either engine (the helpers' store is
 * a PostgreSQL database on STORE=postgres): the webhook deliveries of tenants through the repos,
 * raw table rows to show that a refused request wrote nothing, and a plan's cap (plans are seeded
 * by the migrations and changed by an operator in the database; no route writes them).
 */
import type { TestApp } from '../helpers/make-test-app.js';
import type { DeliveryRow } from '../../src/store/sqlite/webhook-outbox-repo.js';

/**
 * Every webhook delivery of the tenants' events, in delivery order: each event has at most one
 * delivery, queued with it, so delivery ids follow event ids.
 */
export async function deliveriesOf(app: TestApp, tenantIds: readonly string[]): Promise<DeliveryRow[]> {
  const { events, outbox } = app.services.repos;
  const out: DeliveryRow[] = [];
  for (const tenantId of tenantIds) {
    for (let after = 0; ;) {
      const page = await events.page(tenantId, after, 0, 1000);
      if (page.length === 0) break;
      for (const e of page) out.push(...(await outbox.byEvent(e.id)));
      after = page.at(-1)!.id;
    }
  }
  return out.sort((a, b) => a.id - b.id);
}

/** Every row of each table (by its first column), as arrays of values: compare two reads on one engine. */
export async function tableRows(app: TestApp, tables: readonly string[]): Promise<unknown[][][]> {
  const out: unknown[][][] = [];
  for (const table of tables) out.push((await app.sql(`SELECT * FROM ${table} ORDER BY 1`)).map((r) => Object.values(r)));
  return out;
}

/** Sets the plan's subscription cap, as an operator would in the database. */
export async function setPlanCap(app: TestApp, plan: string, maxSubscriptions: number): Promise<void> {
  await app.sql('UPDATE plans SET max_subscriptions = ? WHERE name = ?', maxSubscriptions, plan);
}
