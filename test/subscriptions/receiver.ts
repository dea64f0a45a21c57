/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: records every request and answers with
 * the statuses it is given, in turn (the last one repeats).
 */
import http from 'node:http';

export type Received = { path: string; headers: http.IncomingHttpHeaders; body: string };

export type Receiver = {
  url(path?: string): string;
  received: Received[];
  /** Statuses to answer with, in order; the last repeats. A status of 0 never answers. */
  answers: number[];
  close(): Promise<void>;
};

export async function startReceiver(answers: number[] = [200]): Promise<Receiver> {
  const received: Received[] = [];
  const state = { answers };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const i = Math.min(received.length - 1, state.answers.length - 1);
      const status = state.answers[i] ?? 200;
      if (status === 0) return; // hang
      if (status >= 300 && status < 400) res.setHeader('Location', '/redirected');
      res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    get answers() {
      return state.answers;
    },
    set answers(a: number[]) {
      state.answers = a;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
