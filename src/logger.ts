/**
 * The pino logger. Keys never reach a log line: key headers are redacted by path wherever a
 * request or its headers are logged, and URLs go through redactUrl before they are logged.
 */
import pino, { type Logger } from 'pino';

const REDACTED = '[redacted]';

export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'secret',
  '*.secret',
  'webhookSecret',
  '*.webhookSecret',
  'password',
  '*.password',
];

/** `instance` (INSTANCE_ID) goes on every line, so the logs of several instances can be told apart. */
export function createLogger(level: string, destination?: pino.DestinationStream, instance?: string): Logger {
  return pino(
    { level, base: instance === undefined ? undefined : { instance }, redact: { paths: REDACT_PATHS, censor: REDACTED } },
    destination ?? pino.destination({ dest: 2, sync: false }),
  );
}

/** Query parameter names whose values are credentials, compared after decoding, any case. */
const SECRET_PARAMS = new Set(['key', 'api_key', 'apikey', 'api-key', 'x-api-key', 'token', 'access_token', 'secret', 'password']);
const KEY_MARK = 'svc_live_';

function decode(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

const holdsKey = (raw: string): boolean => decode(raw).toLowerCase().includes(KEY_MARK);

/**
 * A URL with credentials replaced: the values of `key` (and other secret-named parameters,
 * however their names are encoded, since Koa decodes `%6Bey` to `key`), and any query value or
 * path segment that holds something like one of our keys, encoded or not.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q))
    .split('/')
    .map((seg) => (holdsKey(seg) ? REDACTED : seg))
    .join('/');
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      if (holdsKey(name)) return REDACTED;
      if (eq === -1) return part;
      return SECRET_PARAMS.has(decode(name).trim().toLowerCase()) || holdsKey(part.slice(eq + 1)) ? `${name}=${REDACTED}` : part;
    })
    .join('&');
  return `${path}?${query}`;
}
