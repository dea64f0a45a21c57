/**
 * The one list of the API's errors (docs/api.md, Conventions): ApiError, the envelope it becomes,
 * and a named constructor per refusal (`errors.invalidParameter(param, message)`), so a code,
 * its status and its wording are decided here once and every route refuses the same thing the
 * same way. Nothing outside this file builds an ApiError by hand. Messages of 4xx errors are
 * shown to the caller; 5xx messages never are.
 */

export type ErrorCode =
  | 'invalid_parameter'
  | 'invalid_cursor'
  | 'invalid_address'
  | 'invalid_body'
  | 'conflicting_credentials'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'token_not_found'
  | 'market_not_found'
  | 'key_not_found'
  | 'subscription_not_found'
  | 'method_not_allowed'
  | 'key_limit_reached'
  | 'subscription_limit_reached'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'insufficient_storage'
  | 'unavailable'
  | 'internal';

export type ErrorDetail = { line?: number; index?: number; error: string; [k: string]: unknown };

type ErrorOptions = { param?: string | undefined; details?: ErrorDetail[] | undefined; headers?: Record<string, string> };

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers (Allow, Retry-After, WWW-Authenticate). */
  readonly headers: Record<string, string>;
  readonly expose: boolean;

  constructor(status: number, code: ErrorCode, message: string, opts: ErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.param = opts.param;
    this.details = opts.details;
    this.headers = opts.headers ?? {};
    this.expose = status < 500;
  }
}

/** `bytes` as people write it: 10 MB, 64 KB, 4 KB, 100 bytes. */
const sizeText = (bytes: number): string =>
  bytes >= 1 << 20 && bytes % (1 << 20) === 0 ? `${bytes / (1 << 20)} MB` : bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;

/** Every 401 carries the challenge (docs/api.md, Authentication and keys); a Bearer one opens no browser dialog. */
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="api"' };

/** The API's refusals, by name. Each returns a fresh ApiError for the caller to throw. */
export const errors = {
  /** 400: a parameter is malformed, out of range, repeated or unknown; `message` names it. */
  invalidParameter: (param: string, message: string) => new ApiError(400, 'invalid_parameter', message, { param }),
  /** 400: a path segment that must be an address is not one. */
  /** `hint`, when given, follows the predicate (a path address that may be a symbol: where to look it up). */
  invalidAddress: (param = 'address', hint?: string) =>
    new ApiError(400, 'invalid_address', `${param} is not a well-formed address${hint === undefined ? '' : `; ${hint}`}`, { param }),
  /** 400: an address naming a chain the deployment does not serve, or malformed on its chain (docs/chains.md); `problem` says which. */
  invalidChainAddress: (param: string, problem: string) => new ApiError(400, 'invalid_address', `${param}: ${problem}`, { param }),
  /** 400: a cursor this server did not issue for this query (or this account). */
  invalidCursor: (message = 'cursor was not issued by this server for this query') => new ApiError(400, 'invalid_cursor', message, { param: 'cursor' }),
  /** 400: a body that is not JSON / NDJSON or fails validation; `param` names the field, `details` the items. */
  invalidBody: (message: string, opts: { param?: string | undefined; details?: ErrorDetail[] | undefined } = {}) =>
    new ApiError(400, 'invalid_body', message, opts),
  /** 400: two different keys were presented at once. */
  conflictingCredentials: () => new ApiError(400, 'conflicting_credentials', 'two different API keys were presented; send one'),
  unauthorized: (message = 'a valid API key is required') => new ApiError(401, 'unauthorized', message, { headers: CHALLENGE }),
  forbidden: (message: string, param?: string) => new ApiError(403, 'forbidden', message, { param }),
  notFound: (message = 'no such route') => new ApiError(404, 'not_found', message),
  tokenNotFound: (address: string) => new ApiError(404, 'token_not_found', `no token with address ${address}`),
  /** 404 of a UDF symbol that names neither a token nor a market (the adapter shows the message). */
  unknownSymbol: () => new ApiError(404, 'token_not_found', 'unknown symbol', { param: 'symbol' }),
  marketNotFound: (market: string, token: string) => new ApiError(404, 'market_not_found', `no market ${market} of token ${token}`, { param: 'market' }),
  keyNotFound: (message: string) => new ApiError(404, 'key_not_found', message),
  subscriptionNotFound: (message: string) => new ApiError(404, 'subscription_not_found', message),
  methodNotAllowed: (method: string, allow: string) => new ApiError(405, 'method_not_allowed', `${method} is not allowed here`, { headers: { Allow: allow } }),
  keyLimitReached: (message: string) => new ApiError(409, 'key_limit_reached', message),
  subscriptionLimitReached: (message: string) => new ApiError(409, 'subscription_limit_reached', message),
  /**
   * 413 for a body over its route's limit (docs/api.md, Limits): 10 MB for ingest by default,
   * smaller for the small JSON routes. It closes the connection, so the rest is never read.
   */
  payloadTooLarge: (limitBytes = 10 * 1024 * 1024) =>
    new ApiError(413, 'payload_too_large', `the request body is larger than ${sizeText(limitBytes)}`, { headers: { Connection: 'close' } }),
  /** 413 for a body sent to a route that takes none; refused before any of it is read. */
  bodyNotAllowed: () => new ApiError(413, 'payload_too_large', 'this route takes no request body', { headers: { Connection: 'close' } }),
  unsupportedMediaType: (message = 'unsupported content type') => new ApiError(415, 'unsupported_media_type', message),
  /**
   * 426 for a plain GET of the WebSocket route. Its code stays invalid_parameter: the request is
   * fine except for the missing Upgrade header, and clients match on codes already published.
   */
  upgradeRequired: (message: string) => new ApiError(426, 'invalid_parameter', message, { headers: { Upgrade: 'websocket' } }),
  /** 429 with Retry-After; `close` also ends the connection (a throttled sign-in's body is never read). */
  rateLimited: (message: string, retryAfterSeconds: number, opts: { close?: boolean } = {}) =>
    new ApiError(429, 'rate_limited', message, {
      headers: opts.close ? { 'Retry-After': String(retryAfterSeconds), Connection: 'close' } : { 'Retry-After': String(retryAfterSeconds) },
    }),
  /** 500: the message never shows anything internal. */
  internal: () => new ApiError(500, 'internal', 'internal error'),
  /**
   * 507 for a write refused because the store is full (docs/api.md, Conventions). Its message says what
   * happened, unlike other 5xx: it is not a fault of the request, and retrying later is the answer.
   */
  insufficientStorage: () => new ApiError(507, 'insufficient_storage', 'the store is full; nothing was written; retry once space is freed'),
  /**
   * 503 while the store cannot be reached (docs/api.md, Conventions): nothing of the request was
   * written, so retrying after `Retry-After` (whole seconds, at least 1) is the answer. Like 507,
   * its message says so: the fault is not the request's.
   */
  unavailable: (retryAfterSeconds = 1) =>
    new ApiError(503, 'unavailable', 'the store cannot be reached right now; nothing was written; retry shortly', {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    }),
} as const;

// The constructors routes used before the list existed, kept under their names so code written
// against them reads the same; each is the list's own function.
export const { invalidParameter, invalidAddress, tokenNotFound, marketNotFound, unauthorized, payloadTooLarge, bodyNotAllowed, insufficientStorage } = errors;
export const forbidden = (message: string): ApiError => errors.forbidden(message);
export const invalidBody = (message: string, details?: ErrorDetail[]): ApiError => errors.invalidBody(message, { details });

/**
 * True for a full store: SQLite's "database or disk is full" (a full disk, or the store's
 * max_page_count), or PostgreSQL's `disk_full` (SQLSTATE 53100, the server's disk).
 */
export const isStoreFull = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === '53100';
};

/** The JSON body of an error response. */
export function errorEnvelope(err: ApiError, requestId: string): { error: Record<string, unknown> } {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.param !== undefined) error.param = err.param;
  if (err.details !== undefined) error.details = err.details;
  error.requestId = requestId;
  return { error };
}

/** Any thrown value as an ApiError; unknown errors become a 500 that shows nothing internal. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isStoreFull(err)) return errors.insufficientStorage();
  // PostgreSQL refuses a NUL in any text (SQLSTATE 22021). The routes that look text up refuse or
  // find nothing for one first; this keeps any other from answering 500 for what is bad input.
  if ((err as { code?: unknown } | null)?.code === '22021') return new ApiError(400, 'invalid_parameter', 'a value holds a NUL character');
  const e = err as { status?: unknown; statusCode?: unknown; expose?: unknown; type?: unknown; message?: unknown };
  const status = typeof e?.status === 'number' ? e.status : typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status === 413 || e?.type === 'entity.too.large') return errors.payloadTooLarge();
  if (status === 415) return errors.unsupportedMediaType();
  if (status === 404) return errors.notFound();
  if (status >= 400 && status < 500 && e?.expose === true && typeof e.message === 'string') {
    return status === 401 ? new ApiError(401, 'unauthorized', e.message) : new ApiError(status, 'invalid_parameter', e.message);
  }
  if (status >= 400 && status < 500) return new ApiError(400, 'invalid_parameter', 'bad request');
  return errors.internal();
}
