/**
 * Which errors mean "the database cannot be used right now" (docs/operations.md, Many instances):
 * those answer 503 `unavailable`. Free of the pg module, so the error handler can ask without
 * loading pg in SQLite mode; pool.ts re-exports it.
 */
/** SQLSTATE classes and codes that mean "the database is not reachable now", not "the request is wrong". */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01']);
const UNAVAILABLE_SYSCALL = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

/**
 * Whether `err` means the database cannot be used right now (connection refused, lost or timed
 * out, server shutting down or starting, too many connections, a serialization failure or
 * deadlock worth retrying): the caller answers 503 `unavailable`. Anything else is a bug or a bad
 * request and keeps its own handling.
 */
export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('08') || UNAVAILABLE_STATES.has(code) || UNAVAILABLE_SYSCALL.has(code)) return true;
  }
  if (err instanceof AggregateError) return err.errors.some(isUnavailable);
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(err.message);
}
