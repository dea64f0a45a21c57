/**
 * The stream's slow-reader attacks of the hostile pass (docs/operations.md, Benchmark): stream
 * connections that subscribe to everything the hot token sends (five trade subscriptions, the first
 * a `sinceId: 0` replay of up to 10,000 trades, the others live; bars at six resolutions; its price
 * and overview) and never read, either all on one enterprise tenant's key or anonymous from 50
 * loopback addresses (127.0.0.2 and up, 10 connections each: the anonymous cap), while the
 * attacker itself ingests a steady 1,000 trades a second of the hot token with the bench key, so
 * that every connection's queue grows as fast as the server can frame it. (Five replays a
 * connection cost the server so much reading that on two cores most handshakes timed out before
 * the bounds mattered.) Then a flood of 64 KB pings. Each attack's ids are unique per connection:
 * the server frames a message once per distinct id and shares the bytes between connections with
 * the same ids. Reports the server's resident memory before, at its peak while the
 * attack holds, and after the attackers close: what the stream's byte budget and per-connection
 * bounds hold down, and whether closing gives the memory back.
 *
 * Run on its own against a running server (`node --import tsx bench/slow-readers.ts --base URL
 * --pid PID --hot ADDRESS --ingest-key SECRET [--key SECRET]`), or from the hostile pass (bench/hostile.ts).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { rssMb } from './server-gauges.js';
import { startIngestStream, type StreamStats } from './ingest-stream.js';

export type SlowReaderRow = {
  attack: string;
  connections: number;
  /** Connections the server cut while they held (its bounds at work). */
  cut: number;
  /** Connections that could not open, by reason (a refused upgrade, say). */
  refused: Record<string, number>;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssAfterCloseMb: number;
  /** Trades the attacker's ingest got accepted while the connections held. */
  ingested?: number;
};

export type SlowReaderOptions = {
  base: string;
  pid: number;
  hot: string;
  /** An enterprise key: its connections are one tenant's; without it, anonymous connections. */
  key?: string;
  /** The key the attack's ingest posts with (read and ingest scopes). */
  ingestKey: string;
  /** Unix seconds on the server's clock (the bench server's clock is anchored to its data set). */
  serverNow?: () => number;
  holdMs: number;
  say: (m: string) => void;
};

/** Trade subscriptions per connection (the first a replay): each is framed and queued on its own. */
const TRADE_SUBSCRIPTIONS = 5;
const BAR_RESOLUTIONS = ['1S', '1', '5', '15', '60', '1D'];
/** The attacker's own ingest while the connections hold. */
const ATTACK_TRADES_PER_SECOND = 1000;

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Opens one stream connection that stops reading at once and subscribes live to all the hot token
 * sends. Its subscription ids are its own (`n` in each): the server frames a message once per
 * distinct id and shares the bytes between connections that use the same ids, so an attacker who
 * wants memory makes every id unique.
 */
function openSilent(
  n: number,
  url: string,
  hot: string,
  headers: Record<string, string>,
  refused: Record<string, number>,
  localAddress?: string,
): Promise<WebSocket | null> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers, localAddress, perMessageDeflate: false, handshakeTimeout: 30_000 });
    ws.on('error', (err) => {
      refused[err.message] = (refused[err.message] ?? 0) + 1;
      resolve(null);
    });
    ws.on('close', () => resolve(null));
    ws.on('open', () => {
      ws.pause();
      for (let i = 0; i < TRADE_SUBSCRIPTIONS; i++)
        ws.send(JSON.stringify({ op: 'subscribe', id: `c${n}t${i}`, channel: 'trades', token: hot, ...(i === 0 ? { sinceId: 0 } : {}) }));
      for (const resolution of BAR_RESOLUTIONS)
        ws.send(JSON.stringify({ op: 'subscribe', id: `c${n}b${resolution}`, channel: 'bars', token: hot, resolution }));
      ws.send(JSON.stringify({ op: 'subscribe', id: `c${n}p`, channel: 'prices', tokens: [hot] }));
      ws.send(JSON.stringify({ op: 'subscribe', id: `c${n}o`, channel: 'overview', token: hot }));
      resolve(ws);
    });
  });
}

/** Samples the server's RSS every 50 ms while `during` runs; gives the peak. */
async function peakWhile(pid: number, during: () => Promise<void>): Promise<number> {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  try {
    await during();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssMb(pid));
}

async function closeAll(sockets: WebSocket[]): Promise<number> {
  let cut = 0;
  for (const ws of sockets) {
    if (ws.readyState !== WebSocket.OPEN) cut++;
    ws.terminate();
  }
  // The server sees the closes and lets go; then a moment for its memory to settle.
  await settle(5000);
  return cut;
}

/** The attacker's ingest of the hot token, on the markets and wallets of its newest trades. */
async function hotFeed(o: SlowReaderOptions): Promise<{ stop(): Promise<StreamStats> }> {
  const res = await fetch(`${o.base}/v1/token/${o.hot}/trades?limit=100`, { headers: { 'x-api-key': o.ingestKey } });
  if (res.status !== 200) throw new Error(`slow readers: the hot token's trades answered ${res.status}`);
  const { trades: data } = (await res.json()) as { trades: { market: string; wallet: string; priceUsd: number }[] };
  if (data.length === 0) throw new Error('slow readers: the hot token has no trades to trade beside');
  return startIngestStream({
    base: o.base,
    secret: o.ingestKey,
    tokens: [
      {
        address: o.hot,
        markets: [...new Set(data.map((t) => t.market))],
        wallets: [...new Set(data.map((t) => t.wallet))],
        startPrice: data[0]!.priceUsd,
      },
    ],
    serverNow: o.serverNow ?? (() => Math.floor(Date.now() / 1000)),
    tradesPerSecond: ATTACK_TRADES_PER_SECOND,
    intervalMs: 100,
    label: `slow-${Date.now().toString(36)}`,
  });
}

/** Silent connections holding for `holdMs`: `count` on one key, or 10 per address on `addresses` loopback addresses. */
export async function slowReaders(o: SlowReaderOptions & { count: number; addresses?: number }): Promise<SlowReaderRow> {
  const url = `${o.base.replace(/^http/, 'ws')}/v1/stream`;
  const headers: Record<string, string> = o.key === undefined ? {} : { 'x-api-key': o.key };
  const rssBeforeMb = rssMb(o.pid);
  const sockets: WebSocket[] = [];
  const refused: Record<string, number> = {};
  const fed: { stats: StreamStats | null } = { stats: null };
  const rssPeakMb = await peakWhile(o.pid, async () => {
    const opening: Promise<WebSocket | null>[] = [];
    for (let i = 0; i < o.count; i++) {
      const local = o.addresses === undefined ? undefined : `127.0.0.${2 + (i % o.addresses)}`;
      opening.push(openSilent(i, url, o.hot, headers, refused, local));
    }
    for (const ws of await Promise.all(opening)) if (ws !== null) sockets.push(ws);
    const feed = await hotFeed(o);
    await settle(o.holdMs);
    fed.stats = await feed.stop();
  });
  const opened = sockets.length;
  const cut = await closeAll(sockets);
  const row = {
    attack: o.key === undefined ? `slow readers, anonymous from ${o.addresses} addresses` : 'slow readers, one enterprise tenant',
    connections: opened,
    cut,
    refused,
    rssBeforeMb,
    rssPeakMb,
    rssAfterCloseMb: rssMb(o.pid),
    ingested: fed.stats?.accepted ?? 0,
  };
  o.say(
    `${row.attack}: ${opened} connections (${cut} cut by the server), ${row.ingested} trades ingested (${fed.stats?.firstError ?? 'no error'}), RSS ${rssBeforeMb.toFixed(0)} -> peak ${rssPeakMb.toFixed(0)} -> ${row.rssAfterCloseMb.toFixed(0)} MB after close`,
  );
  return row;
}

/** `count` anonymous connections each sending 64 KB pings as fast as the socket takes them, for `holdMs`. */
export async function pingFlood(o: SlowReaderOptions & { count: number }): Promise<SlowReaderRow> {
  const url = `${o.base.replace(/^http/, 'ws')}/v1/stream`;
  const pad = 'x'.repeat(64 * 1024 - 64);
  const rssBeforeMb = rssMb(o.pid);
  const sockets: WebSocket[] = [];
  let sent = 0;
  const rssPeakMb = await peakWhile(o.pid, async () => {
    for (let i = 0; i < o.count; i++) {
      const ws = new WebSocket(url, { localAddress: `127.0.0.${2 + i}`, perMessageDeflate: false });
      ws.on('error', () => undefined);
      await new Promise((r) => ws.once('open', r).once('close', r));
      sockets.push(ws);
    }
    const until = Date.now() + o.holdMs;
    while (Date.now() < until) {
      for (const ws of sockets) {
        if (ws.readyState === WebSocket.OPEN && ws.bufferedAmount < 1024 * 1024) {
          ws.send(`{"op":"ping","id":"p${sent++}","pad":"${pad}"}`);
        }
      }
      await settle(1);
    }
  });
  const cut = await closeAll(sockets);
  const row = {
    attack: `64 KB pings from ${o.count} connections`,
    connections: o.count,
    cut,
    refused: {},
    rssBeforeMb,
    rssPeakMb,
    rssAfterCloseMb: rssMb(o.pid),
  };
  o.say(
    `${row.attack}: ${sent} sent, ${cut} connections cut, RSS ${rssBeforeMb.toFixed(0)} -> peak ${rssPeakMb.toFixed(0)} -> ${row.rssAfterCloseMb.toFixed(0)} MB after close`,
  );
  return row;
}

/** The three attacks, one after another. */
export async function runSlowReaders(o: SlowReaderOptions): Promise<SlowReaderRow[]> {
  const rows: SlowReaderRow[] = [];
  if (o.key !== undefined) rows.push(await slowReaders({ ...o, count: 100 }));
  rows.push(await slowReaders({ ...o, key: undefined, count: 500, addresses: 50 }));
  rows.push(await pingFlood({ ...o, key: undefined, count: 8 }));
  return rows;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      pid: { type: 'string' },
      hot: { type: 'string' },
      key: { type: 'string' },
      'ingest-key': { type: 'string' },
      hold: { type: 'string' },
    },
  });
  if (values.base === undefined || values.pid === undefined || values.hot === undefined || values['ingest-key'] === undefined) {
    process.stderr.write('usage: slow-readers --base URL --pid PID --hot ADDRESS --ingest-key SECRET [--key SECRET] [--hold SECONDS]\n');
    process.exit(2);
  }
  const rows = await runSlowReaders({
    base: values.base,
    pid: Number(values.pid),
    hot: values.hot,
    key: values.key,
    ingestKey: values['ingest-key'],
    holdMs: Number(values.hold ?? '8') * 1000,
    say: (m) => process.stderr.write(`${m}\n`),
  });
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
}
