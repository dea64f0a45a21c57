/**
 * ApiError: the one error type routes throw. The error middleware turns it into the envelope of
 * docs/api.md, Conventions. Messages of 4xx errors are shown to the caller; 5xx messages never are.
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
  | 'internal';

export type ErrorDetail = { line?: number; index?: number; error: string; [k: string]: unknown };

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers (Allow, Retry-After, WWW-Authenticate). */
  readonly headers: Record<string, string>;
  readonly expose: boolean;

  constructor(status: number, code: ErrorCode, message: string, opts: { param?: string; details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
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

export const invalidParameter = (param: string, message: string): ApiError => new ApiError(400, 'invalid_parameter', message, { param });

export const invalidAddress = (param = 'address'): ApiError => new ApiError(400, 'invalid_address', `${param} is not a well-formed address`, { param });

export const tokenNotFound = (address: string): ApiError => new ApiError(404, 'token_not_found', `no token with address ${address}`);

export const marketNotFound = (market: string, token: string): ApiError =>
  new ApiError(404, 'market_not_found', `no market ${market} of token ${token}`, { param: 'market' });

export const unauthorized = (message = 'a valid API key is required'): ApiError =>
  new ApiError(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer realm="api"' } });

/** `bytes` as people write it: 10 MB, 64 KB, 4 KB, 100 bytes. */
const sizeText = (bytes: number): string =>
  bytes >= 1 << 20 && bytes % (1 << 20) === 0 ? `${bytes / (1 << 20)} MB` : bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;

/**
 * 413 for a request body over its route's limit (docs/api.md, Limits): 10 MB for ingest by default,
 * smaller for the small JSON routes. It closes the connection, so the rest of the body is never read.
 */
export const payloadTooLarge = (limitBytes = 10 * 1024 * 1024): ApiError =>
  new ApiError(413, 'payload_too_large', `the request body is larger than ${sizeText(limitBytes)}`, { headers: { Connection: 'close' } });

/** 413 for a body sent to a route that takes none; refused before any of it is read. */
export const bodyNotAllowed = (): ApiError => new ApiError(413, 'payload_too_large', 'this route takes no request body', { headers: { Connection: 'close' } });

export const forbidden = (message: string): ApiError => new ApiError(403, 'forbidden', message);

/** True for SQLite's "database or disk is full" (a full disk, or the store's max_page_count). */
export const isStoreFull = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 'SQLITE_FULL';

/**
 * 507 for a write refused because the store is full (docs/api.md, Conventions). Its message says what
 * happened, unlike other 5xx: it is not a fault of the request, and retrying later is the answer.
 */
export const insufficientStorage = (): ApiError =>
  new ApiError(507, 'insufficient_storage', 'the store is full; nothing was written; retry once space is freed');

export const invalidBody = (message: string, details?: ErrorDetail[]): ApiError => new ApiError(400, 'invalid_body', message, details ? { details } : {});

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
  if (isStoreFull(err)) return insufficientStorage();
  const e = err as { status?: unknown; statusCode?: unknown; expose?: unknown; type?: unknown; message?: unknown };
  const status = typeof e?.status === 'number' ? e.status : typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status === 413 || e?.type === 'entity.too.large') return payloadTooLarge();
  if (status === 415) return new ApiError(415, 'unsupported_media_type', 'unsupported content type');
  if (status === 404) return new ApiError(404, 'not_found', 'no such route');
  if (status >= 400 && status < 500 && e?.expose === true && typeof e.message === 'string') {
    return new ApiError(status, status === 401 ? 'unauthorized' : 'invalid_parameter', e.message);
  }
  if (status >= 400 && status < 500) return new ApiError(400, 'invalid_parameter', 'bad request');
  return new ApiError(500, 'internal', 'internal error');
}
