/**
 * The bus between instances on PostgreSQL alone (docs/operations.md, Many instances: changes
 * without Redis): the same notices as the Redis bus (src/store/port/bus.ts), sent with
 * `pg_notify()` on a pool connection after the commit and heard on a session of this instance's
 * own that LISTENs. PostgreSQL hands a notification to every session listening at the time it
 * is sent and keeps nothing for a session that is away, so, as with Redis, a lost listening
 * session reports 'down' at once (the instance serves no cached answer meanwhile), and 'up'
 * with `flush: true` once it listens again. A payload must stay under 8000 bytes: a change
 * naming more tokens than fit goes out as several notices.
 *
 * PostgreSQL hands a notification to every listening session, the sender's own included, in one
 * step at the sending commit: publish() resolves once this instance's own session has heard its
 * notice back (or at once when it is not listening), so the other instances' sessions have it
 * too before the write that sent it answers.
 */
import pg from 'pg';
import { decodeNotice, encodeNotice, type Bus, type BusOptions, type BusState, type Notice } from '../port/bus.js';

/** One channel per database: the instances of a deployment share the database. */
export const PG_BUS_CHANNEL = 'svc_notices';

/** Bytes of payload at most (PostgreSQL refuses 8000 and more). */
const MAX_PAYLOAD = 7000;

export type PgBusOptions = BusOptions & {
  /** DATABASE_URL: the listening session connects here. */
  url: string;
  /** Where notices are sent from (any connection; a NOTIFY outside a transaction goes at once). */
  pool: pg.Pool;
};

/** `notice` as notices whose envelopes each fit in one payload. */
export function fitted(from: string, notice: Notice): Notice[] {
  if (Buffer.byteLength(encodeNotice(from, notice)) <= MAX_PAYLOAD) return [notice];
  if (notice.type === 'revoke' && notice.keyIds.length > 1) {
    const half = Math.ceil(notice.keyIds.length / 2);
    return [...fitted(from, { ...notice, keyIds: notice.keyIds.slice(0, half) }), ...fitted(from, { ...notice, keyIds: notice.keyIds.slice(half) })];
  }
  if (notice.type === 'change' && notice.tokens !== 'all' && notice.tokens.length > 1) {
    const half = Math.ceil(notice.tokens.length / 2);
    return [...fitted(from, { ...notice, tokens: notice.tokens.slice(0, half) }), ...fitted(from, { ...notice, tokens: notice.tokens.slice(half) })];
  }
  // Nothing left to split (an instance name of thousands of bytes cannot pass INSTANCE_ID's check).
  return [{ type: 'change', tokens: 'all', accounts: true }];
}

/** The number an own notice was sent with (0 when it has none). */
function echoNumber(payload: string): number {
  try {
    const n = (JSON.parse(payload) as { n?: unknown }).n;
    return typeof n === 'number' ? n : 0;
  } catch {
    return 0;
  }
}

/** Listens in the background: a bus made while the database is away reports 'up' when it answers. */
export function createPgBus(opts: PgBusOptions): Bus {
  const reconnectMs = opts.reconnectMs ?? 500;
  let client: pg.Client | null = null;
  let state: BusState = 'down';
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  // Own notices sent and not heard back yet, by their number in the envelope.
  const echoes = new Map<number, () => void>();
  let sent = 0;
  const heardAll = () => {
    for (const done of echoes.values()) done();
    echoes.clear();
  };

  const set = (next: BusState, error?: unknown) => {
    if (next === state || closed) return;
    state = next;
    opts.onState?.(next, next === 'up' ? { flush: true } : { flush: false, error });
  };

  const schedule = () => {
    if (closed || timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      void listen();
    }, reconnectMs);
    timer.unref();
  };

  const lost = (c: pg.Client, error?: unknown) => {
    if (client !== c) return;
    client = null;
    c.end().catch(() => undefined);
    // Nothing sent will come back on this session: nobody waits for it.
    heardAll();
    set('down', error);
    schedule();
  };

  const listen = async (): Promise<void> => {
    const c = new pg.Client({
      connectionString: opts.url,
      application_name: `${opts.instanceId.slice(0, 40)} bus`,
      connectionTimeoutMillis: 3000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 1000,
    });
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    c.on('notification', (m) => {
      if (m.channel !== PG_BUS_CHANNEL || m.payload === undefined) return;
      const decoded = decodeNotice(m.payload);
      if (decoded === null) return opts.onMalformed?.();
      if (decoded.from !== opts.instanceId) return opts.onNotice(decoded.notice, decoded.from);
      const n = echoNumber(m.payload);
      echoes.get(n)?.();
      echoes.delete(n);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${PG_BUS_CHANNEL}`);
    } catch (err) {
      c.end().catch(() => undefined);
      set('down', err);
      schedule();
      return;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    set('up');
  };
  const started = listen();

  return {
    async publish(notice) {
      try {
        for (const part of fitted(opts.instanceId, notice)) {
          const n = ++sent;
          const heard = client === null ? null : new Promise<void>((resolve) => echoes.set(n, resolve));
          // The number rides in the envelope beside the notice (readers ignore what they do not know).
          const payload = JSON.stringify({ ...(JSON.parse(encodeNotice(opts.instanceId, part)) as object), n });
          try {
            await opts.pool.query('SELECT pg_notify($1, $2)', [PG_BUS_CHANNEL, payload]);
          } catch (err) {
            echoes.get(n)?.();
            echoes.delete(n);
            throw err;
          }
          await heard;
        }
        return true;
      } catch {
        return false;
      }
    },
    state: () => state,
    async close() {
      closed = true;
      heardAll();
      if (timer !== null) clearTimeout(timer);
      timer = null;
      await started;
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
