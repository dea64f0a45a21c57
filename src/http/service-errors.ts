/**
 * The contract's HTTP errors for the errors services throw (accounts, subscriptions), in one
 * place, so /v1 routes and the dashboard answer the same refusal the same way. The error
 * handler applies it to everything thrown, so routes just let service errors through.
 */
import { ApiError } from '../errors.js';
import { AccountError } from '../services/accounts.js';
import { SubscriptionError } from '../services/subscriptions.js';

export function fromServiceError(err: unknown): unknown {
  if (err instanceof AccountError) {
    const param = err.param === undefined ? {} : { param: err.param };
    switch (err.kind) {
      case 'not_found':
        return new ApiError(404, 'key_not_found', err.message);
      case 'limit':
        return new ApiError(409, 'key_limit_reached', err.message);
      case 'forbidden':
        return new ApiError(403, 'forbidden', err.message, param);
      case 'inactive':
        return new ApiError(400, 'invalid_parameter', err.message, param);
      case 'invalid':
      case 'conflict':
        return new ApiError(400, 'invalid_body', err.message, param);
    }
  }
  if (err instanceof SubscriptionError) {
    const param = err.param === undefined ? {} : { param: err.param };
    switch (err.kind) {
      case 'invalid':
        return new ApiError(400, 'invalid_body', err.message, param);
      case 'limit':
        return new ApiError(409, 'subscription_limit_reached', err.message);
      case 'not_found':
        return new ApiError(404, 'subscription_not_found', err.message);
    }
  }
  return err;
}
