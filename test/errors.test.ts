/**
 * The one list of errors (src/errors.ts) and the one mapping of service errors
 * (src/http/service-errors.ts): each refusal's status, code, param and headers, as the envelope
 * of docs/api.md, Conventions, shows them.
 */
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../src/errors.js';
import { errorEnvelope, errors, toApiError } from '../src/errors.js';
import { fromServiceError } from '../src/http/service-errors.js';
import { AccountError } from '../src/services/accounts.js';
import { EventCursorError } from '../src/services/events.js';
import { SubscriptionError } from '../src/services/subscriptions.js';

const shape = (e: unknown) => {
  const a = e as ApiError;
  return { status: a.status, code: a.code, message: a.message, param: a.param, headers: a.headers };
};

describe('errors', () => {
  it('builds each refusal with its status, code, param and headers', () => {
    expect(shape(errors.invalidParameter('limit', 'limit must be an integer from 1 to 1000'))).toEqual({
      status: 400,
      code: 'invalid_parameter',
      message: 'limit must be an integer from 1 to 1000',
      param: 'limit',
      headers: {},
    });
    expect(shape(errors.invalidAddress('wallet'))).toMatchObject({
      status: 400,
      code: 'invalid_address',
      message: 'wallet is not a well-formed address',
      param: 'wallet',
    });
    expect(shape(errors.invalidCursor())).toMatchObject({ status: 400, code: 'invalid_cursor', param: 'cursor' });
    expect(shape(errors.unauthorized())).toEqual({
      status: 401,
      code: 'unauthorized',
      message: 'a valid API key is required',
      param: undefined,
      headers: { 'WWW-Authenticate': 'Bearer realm="api"' },
    });
    expect(shape(errors.unknownSymbol())).toMatchObject({ status: 404, code: 'token_not_found', message: 'unknown symbol', param: 'symbol' });
    expect(shape(errors.methodNotAllowed('PUT', 'HEAD, GET'))).toMatchObject({
      status: 405,
      message: 'PUT is not allowed here',
      headers: { Allow: 'HEAD, GET' },
    });
    expect(shape(errors.payloadTooLarge(64 * 1024))).toMatchObject({
      status: 413,
      message: 'the request body is larger than 64 KB',
      headers: { Connection: 'close' },
    });
    expect(shape(errors.upgradeRequired('send Upgrade'))).toMatchObject({ status: 426, code: 'invalid_parameter', headers: { Upgrade: 'websocket' } });
    expect(shape(errors.rateLimited('wait', 3)).headers).toEqual({ 'Retry-After': '3' });
    expect(shape(errors.rateLimited('wait', 3, { close: true })).headers).toEqual({ 'Retry-After': '3', Connection: 'close' });
  });

  it('writes the envelope with param and details only where they are set, and never shows a 5xx message', () => {
    const bad = errors.invalidBody('the batch has invalid records', { details: [{ line: 2, error: 'amount must be a number' }] });
    expect(errorEnvelope(bad, 'r1')).toEqual({
      error: { code: 'invalid_body', message: 'the batch has invalid records', details: [{ line: 2, error: 'amount must be a number' }], requestId: 'r1' },
    });
    expect(errorEnvelope(toApiError(new Error('SELECT * FROM secrets failed')), 'r2')).toEqual({
      error: { code: 'internal', message: 'internal error', requestId: 'r2' },
    });
    expect(toApiError(Object.assign(new Error('full'), { code: 'SQLITE_FULL' })).status).toBe(507);
    // PostgreSQL's disk_full
    expect(toApiError(Object.assign(new Error('could not extend file'), { code: '53100' })).status).toBe(507);
    // PostgreSQL's refusal of a NUL in text is the client's bad input, not a fault
    expect(shape(toApiError(Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' })))).toMatchObject({
      status: 400,
      code: 'invalid_parameter',
      message: 'a value holds a NUL character',
    });
  });
});

describe('fromServiceError', () => {
  it('maps every service refusal to one API error, the events cursor included', () => {
    expect(shape(fromServiceError(new AccountError('not_found', 'no key k1')))).toMatchObject({ status: 404, code: 'key_not_found', message: 'no key k1' });
    expect(shape(fromServiceError(new AccountError('limit', 'at most 3 keys')))).toMatchObject({ status: 409, code: 'key_limit_reached' });
    expect(shape(fromServiceError(new AccountError('forbidden', 'cannot grant', 'scopes')))).toMatchObject({ status: 403, code: 'forbidden', param: 'scopes' });
    expect(shape(fromServiceError(new AccountError('inactive', 'key k1 is revoked', 'id')))).toMatchObject({
      status: 400,
      code: 'invalid_parameter',
      param: 'id',
    });
    expect(shape(fromServiceError(new AccountError('invalid', 'bad name', 'name')))).toMatchObject({ status: 400, code: 'invalid_body', param: 'name' });
    expect(shape(fromServiceError(new SubscriptionError('limit', 'at most 10')))).toMatchObject({ status: 409, code: 'subscription_limit_reached' });
    expect(shape(fromServiceError(new SubscriptionError('not_found', 'not registered')))).toMatchObject({ status: 404, code: 'subscription_not_found' });
    expect(shape(fromServiceError(new EventCursorError('cursor is not valid for this account')))).toEqual({
      status: 400,
      code: 'invalid_cursor',
      message: 'cursor is not valid for this account',
      param: 'cursor',
      headers: {},
    });
    const other = new Error('anything else');
    expect(fromServiceError(other)).toBe(other);
  });
});
