/**
 * The revocation check of the stream's connections (docs/api.md, Live stream): every connected
 * key is looked at on every check, since expiry is a matter of the clock and revocation may come
 * from any process or instance. One read per distinct key, the reads made together.
 */
import type { Connection } from './connection.js';
import type { StreamReads } from './types.js';

/**
 * Closes with 4401 the connections whose key is no longer valid (what waits for them is not sent),
 * and writes what waits for the others (should a socket's end have gone unreported). A key that cannot be checked now (the store unreachable) keeps its streams until it can.
 */
export async function checkKeys(conns: readonly Connection[], open: (c: Connection) => boolean, keyValid: StreamReads['keyValid']): Promise<void> {
  const keys = [...new Set(conns.flatMap((c) => (c.info.keyId === null ? [] : [c.info.keyId])))];
  const answers = await Promise.all(keys.map((k) => keyValid(k).catch(() => true)));
  const verdicts = new Map(keys.map((k, i) => [k, answers[i]!]));
  for (const c of conns) {
    if (!open(c)) continue;
    const keyId = c.info.keyId;
    if (keyId !== null && verdicts.get(keyId) === false) {
      c.close(4401, 'the API key is no longer valid', false);
      continue;
    }
    if (c.holding) c.flush();
  }
}
