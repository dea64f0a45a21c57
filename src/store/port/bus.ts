/**
 * What one instance tells the others after a commit (docs/operations.md, Many instances), and
 * how a notice travels: a JSON envelope naming its sender, so an instance skips its own. The
 * same on every bus (Redis pub/sub, src/coord/redis-bus.ts; PostgreSQL LISTEN/NOTIFY,
 * src/store/pg/pg-bus.ts). Free of either client, so the wiring loads only the one it uses.
 */
import { z } from 'zod';

const noticeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('change'), tokens: z.union([z.array(z.number().int()), z.literal('all')]), accounts: z.boolean() }),
  z.object({ type: z.literal('revoke'), keyIds: z.array(z.string()) }),
]);

/** What one instance tells the others. */
export type Notice = z.infer<typeof noticeSchema>;

const envelopeSchema = z.object({ from: z.string(), notice: z.unknown() });

export type BusState = 'up' | 'down';

/** A bus between the instances of one deployment. */
export type Bus = {
  /** Sends a notice to every other instance: false when it cannot be sent now. */
  publish(notice: Notice): Promise<boolean>;
  /** 'up' while this instance hears the others. */
  state(): BusState;
  close(): Promise<void>;
};

export type BusOptions = {
  /** This instance's name: its own notices are not handed back to it. */
  instanceId: string;
  /** A notice from another instance. */
  onNotice: (notice: Notice, from: string) => void;
  /** A message on the channel that is not a notice (counted, then ignored). */
  onMalformed?: () => void;
  /**
   * The subscription was lost ('down') or is back ('up'); `flush` is true when notices may have
   * been missed, so every cached answer must go. The first 'up' after start flushes too.
   */
  onState?: (state: BusState, info: { flush: boolean; error?: unknown }) => void;
  /** Wait between reconnection attempts, in ms (default 500). */
  reconnectMs?: number;
};

export const encodeNotice = (from: string, notice: Notice): string => JSON.stringify({ from, notice });

/**
 * The sender and notice of a message, or null for one that cannot be read (garbled, or not ours).
 * Such a message is ignored, not read as "everything changed": anyone able to publish on the
 * channel could otherwise make every instance drop every cache with one byte of garbage
 * (docs/operations.md, Many instances: Redis AUTH and TLS are what keep strangers off it).
 */
export function decodeNotice(message: string): { from: string; notice: Notice } | null {
  try {
    const env = envelopeSchema.parse(JSON.parse(message));
    const parsed = noticeSchema.safeParse(env.notice);
    return parsed.success ? { from: env.from, notice: parsed.data } : null;
  } catch {
    return null;
  }
}
