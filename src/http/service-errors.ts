/**
 * The one mapping of the errors services throw (accounts, subscriptions, events) to the API's
 * errors, so /v1 routes and the dashboard answer the same refusal the same way. The error
 * handler applies it to everything thrown, so routes just let service errors through.
 */
import { errors } from '../errors.js';
import { AccountError } from '../services/accounts.js';
import { EventCursorError } from '../services/events.js';
import { SubscriptionError } from '../services/subscriptions.js';
import { isUnavailableOnAnyEngine } from '../open-store.js';

/**
 * The store cannot be used now, as its engine tells (src/store/port/engine.ts, isUnavailable):
 * PostgreSQL unreachable, or SQLite's write lock still held by another process after the busy
 * timeout (SQLITE_BUSY and its variants). Both are
 * passing states, so the answer is 503 with Retry-After, not a 500 (docs/api.md, Conventions).
 */
export function isStoreUnavailable(err: unknown): boolean {
  return isUnavailableOnAnyEngine(err);
}

export function fromServiceError(err: unknown): unknown {
  if (err instanceof AccountError) {
    switch (err.kind) {
      case 'not_found':
        return errors.keyNotFound(err.message);
      case 'limit':
        return errors.keyLimitReached(err.message);
      case 'forbidden':
        return errors.forbidden(err.message, err.param);
      case 'unauthorized':
        return errors.unauthorized(err.message);
      case 'inactive':
        return errors.invalidParameter(err.param ?? 'id', err.message);
      case 'invalid':
      case 'conflict':
        return errors.invalidBody(err.message, { param: err.param });
    }
  }
  if (err instanceof SubscriptionError) {
    switch (err.kind) {
      case 'invalid':
        return errors.invalidBody(err.message, { param: err.param });
      case 'limit':
        return errors.subscriptionLimitReached(err.message);
      case 'not_found':
        return errors.subscriptionNotFound(err.message);
    }
  }
  if (err instanceof EventCursorError) return errors.invalidCursor(err.message);
  if (isStoreUnavailable(err)) return errors.unavailable();
  return err;
}
