/** The pino logger. Keys never reach a log line: key headers are redacted by path. */
import pino, { type Logger } from 'pino';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'secret', '*.secret'], censor: '[redacted]' },
    },
    destination ?? pino.destination({ dest: 2, sync: false }),
  );
}

/** A URL with the values of `key` (and any other secret-looking parameter) replaced. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:key|api_key|apikey|token)=)[^&#]*/gi, '$1[redacted]');
}
