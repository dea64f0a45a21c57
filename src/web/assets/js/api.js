// Fetch helpers shared by the pages: JSON in and out, errors from the API's envelope.

/** An error answered by the API: status, code and message from its envelope. */
export class ApiFailure extends Error {
  constructor(status, code, message, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/**
 * Fetches JSON from this origin. `cache: 'no-cache'` revalidates with the ETag, so an unchanged
 * answer costs a 304. Throws ApiFailure for an error status (UDF errors included).
 */
export async function getJson(path, init = {}) {
  const res = await fetch(path, { cache: 'no-cache', credentials: 'same-origin', ...init, headers: { Accept: 'application/json', ...(init.headers ?? {}) } });
  let body = null;
  const text = await res.text();
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (!res.ok) {
    const err = body && body.error ? body.error : { code: 'http_' + res.status, message: res.statusText || 'request failed' };
    throw new ApiFailure(res.status, err.code, err.message, res.headers.get('Retry-After'));
  }
  return body;
}

/** Sends JSON (POST, DELETE) with the given extra headers. */
export function sendJson(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return getJson(path, init);
}

/** A query string from an object, leaving out undefined values. */
export function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) u.set(k, String(v));
  return u.toString();
}
