/**
 * The webhook delivery worker (docs/api.md, Subscriptions, events, ingest). Deliveries wait in the store's outbox
 * (webhook_deliveries), so a restart loses none. The worker starts due ones in free slots (at most
 * 2 per tenant of 8 in all, so one tenant's dead endpoint cannot hold up another's), claims each (moves
 * its due time past the attempt, so a crash mid-attempt means a retry, never a loss), POSTs the
 * event, and only then records the outcome: delivered on a 2xx within the timeout; otherwise a
 * retry 1 s later, doubling, at most 1 h apart, until 24 h after the event; then failed.
 * Redirects are not followed (3xx is a failure). Delivery is at least once; receivers dedupe by
 * `Svc-Event-Id`. Order across events is not guaranteed; GET /v1/events is the ordered record.
 *
 * The pass also prunes events older than 7 days (at most once a minute of the service clock; with
 * several instances on PostgreSQL, only on the one holding the pruning job).
 * All scheduling uses the injected clock; the loop's timer only decides when to look.
 */
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { StoreHandle } from '../store/port/handle.js';
import type { Clock } from '../domain/clock.js';
import type { Async } from '../store/port/async.js';
import type { DueDelivery, WebhookOutboxRepo } from '../store/port/repos.js';
import { eventId } from './events.js';
import { refusedLiteral } from './webhook-target.js';
import { post, type Outcome } from './webhook-post.js';
import { engineOf } from '../open-store.js';
import type { Services } from './index.js';

export const FIRST_RETRY_MS = 1000;
export const MAX_RETRY_MS = 3600 * 1000;
const PRUNE_EVERY_MS = 60 * 1000;

export type WebhookWorkerDeps = {
  store: StoreHandle;
  clock: Clock;
  /** The events service (pruning), the counters and the outbox (`repos.outbox`), from createServices. */
  services: Pick<Services, 'events' | 'metrics'> & { repos: { outbox: WorkerOutbox } };
  config: { webhookAllowPrivate: boolean };
  logger?: Logger;
  /** How often the loop looks for due deliveries (real ms). Default 1000. */
  intervalMs?: number;
  /** false: no loop; the caller drives passes with runOnce() (tests). Default true. */
  loop?: boolean;
  /** Per-attempt timeout (real ms). Default 5000. */
  timeoutMs?: number;
  /** Deliveries taken per pass. Default 100. */
  batchSize?: number;
  /** Attempts in flight at once. Default 8. */
  concurrency?: number;
  /** Attempts of one tenant in flight at once. Default 2. */
  perTenant?: number;
  /**
   * Whether this worker prunes old events now. Default: always. On PostgreSQL, while this
   * instance holds the pruning job lock (src/services/jobs.ts), so one instance prunes.
   */
  prunes?: () => boolean;
};

/**
 * The outbox as the worker uses it, on either engine. Where the engine can take a batch of due
 * rows in one statement, each row by one caller only (PostgreSQL's `claimDue`: FOR UPDATE SKIP
 * LOCKED, leased in the same statement), the worker takes its deliveries that way; otherwise
 * (SQLite) it reads `due()` and takes each row it starts with `claim()`, a compare-and-set on
 * the row's due time, so two processes never both take one row.
 */
export type WorkerOutbox = Pick<Async<WebhookOutboxRepo>, 'due' | 'claim'> & {
  [K in 'delivered' | 'retry' | 'finish']: (...args: Parameters<WebhookOutboxRepo[K]>) => Promise<unknown>;
} & {
  claimDue?: (now: number, limit: number, leaseUntil: number, skipTenants: readonly string[]) => Promise<DueDelivery[]>;
};

export type WebhookWorker = {
  /** Stops the loop and waits for the pass in flight. */
  stop(): Promise<void>;
  /**
   * Starts due attempts and waits for them, again until nothing due is left to start (after any
   * run in flight); resolves to the number of attempts made.
   */
  runOnce(): Promise<number>;
};

/** `Svc-Signature` for a body sent at unix time `t`. */
export function signatureHeader(secret: string, t: number, body: string): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** The delay before retry number `attempts` (1 after the first failure). */
export const retryDelayMs = (attempts: number): number => Math.min(FIRST_RETRY_MS * 2 ** Math.min(attempts - 1, 30), MAX_RETRY_MS);

export function startWebhookWorker(deps: WebhookWorkerDeps): WebhookWorker {
  const outbox = deps.services.repos.outbox;
  const { events, metrics } = deps.services;
  const timeoutMs = deps.timeoutMs ?? 5000;
  const batchSize = deps.batchSize ?? 100;
  const concurrency = deps.concurrency ?? 8;
  const perTenant = Math.min(deps.perTenant ?? 2, concurrency);
  const allowPrivate = deps.config.webhookAllowPrivate;
  let lastPrune = -Infinity;

  /** One attempt at a delivery this worker has claimed; false when there was nothing to send. */
  const attempt = async (d: DueDelivery): Promise<boolean> => {
    const now = deps.clock.now();
    const attempts = d.attempts + 1;
    if (d.webhookUrl === null || d.secret === null) {
      await outbox.finish({
        id: d.id,
        attempts: d.attempts,
        status: 'cancelled',
        lastStatus: null,
        lastError: 'the subscription has no webhook URL any more',
        now,
      });
      metrics.webhookDelivery('cancelled');
      return false;
    }
    // The body is the event as /v1/events shows it: its id is the event's, not the delivery row's.
    // Through the events service, so the body names the token's chain as /v1/events does (docs/chains.md).
    const body = events.json({ id: d.eventId, token: d.token, createdAt: d.createdAt, data: d.data });
    const t = Math.floor(now / 1000);
    let url: URL | null = null;
    try {
      url = new URL(d.webhookUrl);
    } catch {
      // Stored URLs were checked at registration; a bad one is treated as a failed attempt.
    }
    const started = performance.now();
    const outcome: Outcome =
      url === null
        ? { status: null, error: 'invalid webhook URL' }
        : !allowPrivate && refusedLiteral(url)
          ? { status: null, error: 'the webhook host is not a public address' }
          : await post(
              url,
              body,
              {
                'Content-Type': 'application/json',
                'User-Agent': 'token-data-service-webhooks/1',
                'Svc-Event-Id': eventId(d.eventId),
                'Svc-Signature': signatureHeader(d.secret, t, body),
              },
              timeoutMs,
              allowPrivate,
            );
    const after = deps.clock.now();
    const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const lastError = ok ? null : (outcome.error ?? `HTTP ${outcome.status}`);
    const seconds = (performance.now() - started) / 1000;
    if (ok) {
      await outbox.delivered({ id: d.id, attempts, lastStatus: outcome.status, lastError: null, now: after });
      metrics.webhookDelivery('delivered', seconds);
    } else {
      const next = after + retryDelayMs(attempts);
      const gaveUp = next > d.deadlineAt;
      if (gaveUp) await outbox.finish({ id: d.id, attempts, status: 'failed', lastStatus: outcome.status, lastError, now: after });
      else await outbox.retry({ id: d.id, attempts, dueAt: next, lastStatus: outcome.status, lastError });
      metrics.webhookDelivery(gaveUp ? 'failed' : 'retry', seconds);
      deps.logger?.debug({ delivery: d.id, event: eventId(d.eventId), attempts, status: outcome.status, error: outcome.error }, 'webhook attempt failed');
    }
    return true;
  };

  // Fairness (docs/api.md, Subscriptions, events, ingest): at most `perTenant` attempts of one tenant are in flight, so a
  // tenant whose endpoint hangs holds at most that many of the `concurrency` slots; a slot freed
  // by any attempt is refilled at once, so no tenant waits for another's slow attempts to end.
  const inFlight = new Map<string, number>();
  let busy = 0;
  const running = new Set<Promise<boolean>>();
  let stopped = false;

  const launch = (d: DueDelivery): Promise<boolean> => {
    busy++;
    inFlight.set(d.tenantId, (inFlight.get(d.tenantId) ?? 0) + 1);
    const p = attempt(d).finally(() => {
      busy--;
      const left = (inFlight.get(d.tenantId) ?? 1) - 1;
      if (left === 0) inFlight.delete(d.tenantId);
      else inFlight.set(d.tenantId, left);
      running.delete(p);
      if (!stopped && deps.loop !== false) refill();
    });
    running.add(p);
    return p;
  };

  /** Whether `d` may start now: a free slot, and its tenant below its cap. */
  const fits = (d: DueDelivery, counts: Map<string, number>, slots: number) => slots > 0 && (counts.get(d.tenantId) ?? 0) < perTenant;

  /**
   * Takes due deliveries for this worker, tenants in `full` left out; each is leased until
   * `leaseUntil` (past the longest attempt: a crash mid-attempt means a retry later, never a lost
   * delivery). By `claimDue` when the outbox has it: as many rows as there are free slots (the
   * caller starts what fits and gives the rest back). Otherwise by `due()`, choosing in memory
   * what fits the slots and caps, and `claim()` on each row chosen (a row another process took
   * first is left out).
   */
  const take = async (now: number, full: string[], leaseUntil: number): Promise<DueDelivery[]> => {
    if (outbox.claimDue) return outbox.claimDue(now, concurrency - busy, leaseUntil, full);
    const counts = new Map(inFlight);
    let slots = concurrency - busy;
    const chosen: DueDelivery[] = [];
    for (const d of await outbox.due(now, batchSize, full)) {
      if (!fits(d, counts, slots)) continue;
      counts.set(d.tenantId, (counts.get(d.tenantId) ?? 0) + 1);
      slots--;
      chosen.push(d);
    }
    const won = await Promise.all(chosen.map((d) => outbox.claim(d.id, d.dueAt, leaseUntil)));
    return chosen.filter((_, i) => won[i]);
  };

  /** Starts due attempts in the free slots, tenants at their cap left out; returns them. */
  const round = async (): Promise<Promise<boolean>[]> => {
    if (!deps.store.isOpen() || busy >= concurrency) return [];
    const now = deps.clock.now();
    if (now - lastPrune >= PRUNE_EVERY_MS && (deps.prunes?.() ?? true)) {
      lastPrune = now;
      await events.prune();
    }
    const leaseUntil = now + timeoutMs + 60_000;
    const launched: Promise<boolean>[] = [];
    for (;;) {
      const full = [...inFlight].filter(([, n]) => n >= perTenant).map(([tenant]) => tenant);
      const taken = await take(now, full, leaseUntil);
      // A batch taken by claimDue may hold more of one tenant than its cap allows: those rows go
      // back at once (their due time restored by the same compare-and-set), and the next batch
      // leaves that tenant out, so one tenant's backlog never keeps another's deliveries waiting.
      const back: DueDelivery[] = [];
      for (const d of taken) {
        if (fits(d, inFlight, concurrency - busy)) launched.push(launch(d));
        else back.push(d);
      }
      if (back.length === 0) return launched;
      await Promise.all(back.map((d) => outbox.claim(d.id, leaseUntil, d.dueAt)));
      if (busy >= concurrency) return launched;
    }
  };

  // One round at a time: two at once would both count the same free slots.
  let rounds: Promise<unknown> = Promise.resolve();
  const launchDue = (): Promise<Promise<boolean>[]> => {
    const r = rounds.then(round);
    rounds = r.catch(() => undefined);
    return r;
  };

  // A database out of reach fails every pass until it is back: said once a minute, as a warning.
  let lastUnreachable = -Infinity;
  const refill = () => {
    launchDue().catch((err: unknown) => {
      if (!deps.store.isOpen()) return;
      if (!engineOf(deps.store).isUnavailable(err)) return deps.logger?.error({ err }, 'webhook pass failed');
      if (Date.now() - lastUnreachable < 60_000) return;
      lastUnreachable = Date.now();
      deps.logger?.warn({ err }, 'webhook pass failed: the store cannot be reached; deliveries wait in the outbox');
    });
  };

  /** Launches due attempts until none is left to start, waiting for each round; counts them. */
  const pass = async (): Promise<number> => {
    // A large ingest batch holds one open transaction across its slices: outbox rows read before
    // its commit could belong to a batch that is then rolled back (docs/api.md, Ingest limits).
    const writing = deps.store.settled();
    if (writing !== null) await writing.catch(() => undefined);
    let made = 0;
    for (;;) {
      const launched = await launchDue();
      if (launched.length === 0) return made;
      made += (await Promise.all(launched)).filter(Boolean).length;
    }
  };

  let chain: Promise<unknown> = Promise.resolve();
  const runOnce = (): Promise<number> => {
    const run = chain.then(pass, pass);
    chain = run.catch(() => undefined);
    return run;
  };

  let timer: NodeJS.Timeout | null = null;
  const schedule = (ms: number) => {
    if (stopped || deps.loop === false) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  // The loop starts what is due and comes back after the interval; it never waits for attempts.
  const tick = () => {
    timer = null;
    refill();
    schedule(deps.intervalMs ?? 1000);
  };
  // New events from this process are looked at without waiting for the next tick.
  const off =
    deps.loop === false
      ? () => {}
      : deps.store.onChange(() => {
          if (timer !== null) schedule(10);
        });
  schedule(0);

  return {
    async stop() {
      stopped = true;
      off();
      if (timer) clearTimeout(timer);
      timer = null;
      await chain;
      await rounds;
      await Promise.all(running);
    },
    runOnce,
  };
}
