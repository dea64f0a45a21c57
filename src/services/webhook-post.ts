/**
 * One webhook POST of the delivery worker (src/services/webhooks.ts): no agent reuse, no redirects
 * followed, a timer that ends a request or a response that never finishes, and (unless private
 * targets are allowed) a lookup that refuses private addresses at connect time.
 */
import http from 'node:http';
import https from 'node:https';
import { publicOnlyLookup } from './webhook-target.js';

/** What one POST came to: the status, or the error that ended it. */
export type Outcome = { status: number | null; error: string | null };

/** One POST; resolves with the status, or an error; never rejects. */
export function post(url: URL, body: string, headers: Record<string, string>, timeoutMs: number, allowPrivate: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (o: Outcome) => {
      if (!settled) {
        settled = true;
        resolve(o);
      }
    };
    const client = url.protocol === 'https:' ? https : http;
    let req: http.ClientRequest;
    try {
      req = client.request(url, {
        method: 'POST',
        agent: false,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        ...(allowPrivate ? {} : { lookup: publicOnlyLookup }),
      });
    } catch (err) {
      settle({ status: null, error: err instanceof Error ? err.message : 'request failed' });
      return;
    }
    const timer = setTimeout(() => {
      settle({ status: null, error: `no answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('response', (res) => {
      settle({ status: res.statusCode ?? 0, error: null });
      res.resume(); // the body is not needed; the timer closes a response that never ends
      res.on('end', () => clearTimeout(timer));
      res.on('error', () => clearTimeout(timer));
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      settle({ status: null, error: err.message });
    });
    req.end(body);
  });
}
