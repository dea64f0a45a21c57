/**
 * The first-party TradingView datafeed (docs/api.md, Live stream): the Charting Library's Datafeed API
 * on this service's /udf routes (history, symbols, search, quotes) and its /v1/stream WebSocket
 * (live bars and quotes). Served as an ES module at /sdk/datafeed.js; types at /sdk/datafeed.d.ts.
 *
 *   import { createDatafeed } from 'https://api.example.com/sdk/datafeed.js';
 *   new TradingView.widget({ datafeed: createDatafeed({ baseUrl: 'https://api.example.com' }), ... });
 *
 * Bar times are in milliseconds. One WebSocket is shared by every subscription and reconnects
 * with exponential backoff (1 s doubling to 30 s), resubscribing each bars subscription with
 * `since` = its last bar time, so nothing is missed. Every callback runs asynchronously.
 *
 * A `reset` of a bars subscription (a backfill, a changed supply, a chain reorganisation that took
 * trades out) calls its onResetCacheNeededCallback: the library reloads history with getBars. After
 * a reorg the newest bar may be older than the last one pushed, so the subscription then takes the
 * next bar whatever its time. The stream's `removed` messages go to trade subscriptions, which a
 * datafeed never makes: a chart has no trade list, and its bars come again after the reset.
 *
 * Several chains (docs/chains.md): a symbol `chain:address` charts that chain's token; its ticker
 * (the store key) is what getBars, subscribeBars and getMarks send back, so one chain's bars never
 * stand for another's at the same address.
 *
 * A token symbol's currency menu offers USD and MCAP (market cap): the currency the library asks
 * for goes to /udf/symbols and /udf/history as currencyCode and to the stream as metric.
 * `createDatafeed({ baseUrl, wallet })` marks that wallet's trades on the chart (getMarks, from
 * /udf/marks); without a wallet the datafeed says it has no marks, so the library asks for none.
 */

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30000;
/** The shared connection closes this long after its last subscription ends. */
const IDLE_CLOSE_MS = 2000;

/** Runs a library callback on a later turn, as the Charting Library requires. */
const later = (fn, ...args) => void setTimeout(() => fn(...args), 0);

/** The code of market-cap bars in a token symbol's currency_codes. */
const MCAP = 'MCAP';

/** @param {{ baseUrl: string, apiKey?: string, wallet?: string, WebSocket?: typeof WebSocket }} options */
export function createDatafeed(options) {
  const base = String(options.baseUrl).replace(/\/+$/, '');
  const apiKey = options.apiKey || '';
  const wallet = options.wallet || '';
  const Socket = options.WebSocket || globalThis.WebSocket;
  const headers = apiKey ? { 'x-api-key': apiKey } : {};

  async function get(path, query) {
    const qs = new URLSearchParams(query).toString();
    const res = await fetch(`${base}${path}${qs ? '?' + qs : ''}`, { headers });
    const body = await res.json();
    if (body && body.s === 'error') throw new Error(body.errmsg || 'request failed');
    if (!res.ok) throw new Error((body && body.error && body.error.message) || `HTTP ${res.status}`);
    return body;
  }

  const stream = createStream(base, apiKey, Socket);

  /** listenerGuid -> bars subscription */
  const barSubs = new Map();
  /** listenerGuid -> quotes subscription */
  const quoteSubs = new Map();
  /** Ends the subscription of a listener in `subs`; nothing when it has none (already ended, or never made). */
  const closeSub = (subs, listenerGuid) => {
    const sub = subs.get(listenerGuid);
    if (!sub) return;
    subs.delete(listenerGuid);
    sub.handle.close();
  };

  return {
    onReady(callback) {
      get('/udf/config', {}).then(
        // Marks are a wallet's trades: without one there are none to ask for.
        (config) => later(callback, { ...config, supports_marks: Boolean(wallet) && config.supports_marks === true }),
        () => later(callback, { supported_resolutions: ['1', '5', '15', '60', '1D'] }),
      );
    },

    searchSymbols(userInput, exchange, symbolType, onResult) {
      get('/udf/search', { query: userInput || '', type: symbolType || '', exchange: exchange || '', limit: '30' }).then(
        (items) => later(onResult, items),
        () => later(onResult, []),
      );
    },

    resolveSymbol(symbolName, onResolve, onError, extension) {
      const query = { symbol: symbolName };
      // The currency picked in the chart's menu (USD, MCAP, or a pair's quote symbol).
      if (extension && extension.currencyCode) query.currencyCode = extension.currencyCode;
      get('/udf/symbols', query).then(
        (info) => later(onResolve, info),
        (err) => later(onError, err.message === 'unknown symbol' ? 'unknown_symbol' : err.message),
      );
    },

    getBars(symbolInfo, resolution, periodParams, onResult, onError) {
      const query = { symbol: symbolInfo.ticker || symbolInfo.name, resolution, from: String(periodParams.from), to: String(periodParams.to) };
      if (periodParams.countBack > 0) query.countback = String(periodParams.countBack);
      if (symbolInfo.currency_code) query.currencyCode = symbolInfo.currency_code;
      get('/udf/history', query).then(
        (h) => {
          if (h.s !== 'ok') {
            const meta = { noData: true };
            if (typeof h.nextTime === 'number') meta.nextTime = h.nextTime * 1000;
            later(onResult, [], meta);
            return;
          }
          const bars = h.t.map((t, i) => ({ time: t * 1000, open: h.o[i], high: h.h[i], low: h.l[i], close: h.c[i], volume: h.v[i] }));
          later(onResult, bars, { noData: bars.length === 0 });
        },
        (err) => later(onError, err.message),
      );
    },

    subscribeBars(symbolInfo, resolution, onTick, listenerGuid, onResetCacheNeededCallback) {
      if (barSubs.has(listenerGuid)) this.unsubscribeBars(listenerGuid);
      const sub = {
        token: symbolInfo.ticker || symbolInfo.name,
        resolution,
        // Market-cap bars for a chart in MCAP (a pair's quote currency has no stream of its own).
        metric: symbolInfo.currency_code === MCAP ? 'mcap' : 'price',
        lastTime: null,
        handle: null,
        onMessage(m) {
          if (m.op === 'bar') {
            const t = m.bar.t * 1000;
            // The library only takes the newest bar or a newer one. The stream sends the state after
            // each ingest batch (the bar sent last, final, then the newest), so bars one batch filled
            // in between are not pushed: the chart gets them from getBars on its next history load.
            if (sub.lastTime !== null && t < sub.lastTime) return;
            sub.lastTime = t;
            later(onTick, { time: t, open: m.bar.o, high: m.bar.h, low: m.bar.l, close: m.bar.c, volume: m.bar.v });
          } else if (m.op === 'reset') {
            // The history is reloaded; the bar that follows (after a reorg, maybe older) is the newest.
            sub.lastTime = null;
            if (typeof onResetCacheNeededCallback === 'function') later(onResetCacheNeededCallback);
          }
        },
      };
      sub.handle = stream.subscribe(() => {
        const msg = { op: 'subscribe', channel: 'bars', token: sub.token, resolution: sub.resolution };
        if (sub.metric === 'mcap') msg.metric = 'mcap';
        if (sub.lastTime !== null) msg.since = Math.floor(sub.lastTime / 1000);
        return msg;
      }, sub.onMessage);
      barSubs.set(listenerGuid, sub);
    },

    unsubscribeBars(listenerGuid) {
      closeSub(barSubs, listenerGuid);
    },

    getMarks(symbolInfo, from, to, onDataCallback, resolution) {
      if (!wallet) return later(onDataCallback, []);
      const query = { symbol: symbolInfo.ticker || symbolInfo.name, from: String(from), to: String(to), resolution: String(resolution || ''), wallet };
      get('/udf/marks', query).then(
        (m) =>
          later(
            onDataCallback,
            m.id.map((id, i) => ({
              id,
              time: m.time[i],
              color: m.color[i],
              text: m.text[i],
              label: m.label[i],
              labelFontColor: m.labelFontColor[i],
              minSize: m.minSize[i],
            })),
          ),
        () => later(onDataCallback, []),
      );
    },

    getServerTime(callback) {
      fetch(`${base}/udf/time`, { headers })
        .then((r) => r.text())
        .then(
          (text) => {
            const t = Number(text);
            if (Number.isFinite(t)) later(callback, t);
          },
          () => {},
        );
    },

    getQuotes(symbols, onDataCallback, onErrorCallback) {
      get('/udf/quotes', { symbols: symbols.join(',') }).then(
        (q) => later(onDataCallback, q.d),
        (err) => later(onErrorCallback, err.message),
      );
    },

    subscribeQuotes(symbols, fastSymbols, onRealtimeCallback, listenerGuid) {
      if (quoteSubs.has(listenerGuid)) this.unsubscribeQuotes(listenerGuid);
      const names = [...new Set([...(symbols || []), ...(fastSymbols || [])])];
      if (names.length === 0) return;
      const sub = { names, addresses: [], chains: null, handle: null };
      const onMessage = (m) => {
        if (m.op === 'subscribed') [sub.addresses, sub.chains] = [m.tokens, m.chains || null];
        if (m.op !== 'price') return;
        // With several chains one address may be two tokens: a price names its chain too.
        const asked = names.filter((_, i) => sub.addresses[i] === m.token && (sub.chains === null || sub.chains[i] === m.chain));
        if (asked.length === 0) return;
        get('/udf/quotes', { symbols: asked.join(',') }).then(
          (q) => {
            if (quoteSubs.get(listenerGuid) === sub) later(onRealtimeCallback, q.d);
          },
          () => {},
        );
      };
      // At most 100 tokens per prices subscription: the first 100 names are followed.
      sub.handle = stream.subscribe(() => ({ op: 'subscribe', channel: 'prices', tokens: names.slice(0, 100) }), onMessage);
      quoteSubs.set(listenerGuid, sub);
    },

    unsubscribeQuotes(listenerGuid) {
      closeSub(quoteSubs, listenerGuid);
    },
  };
}

/**
 * The shared connection: opened on the first subscription, closed after the last, reconnected
 * with backoff while subscriptions remain. `subscribe(build, onMessage)` sends `build()` now (or
 * on the next open) and on every reconnect, and routes the messages of its `sub` to onMessage.
 */
function createStream(base, apiKey, Socket) {
  const url = `${base.replace(/^http/, 'ws')}/v1/stream${apiKey ? '?key=' + encodeURIComponent(apiKey) : ''}`;
  const entries = new Set();
  const byRequest = new Map();
  const bySub = new Map();
  let ws = null;
  let open = false;
  let backoff = MIN_BACKOFF_MS;
  let retry = null;
  let seq = 0;

  let idle = null;

  const send = (msg) => ws.send(JSON.stringify(msg));

  function closeIdle() {
    idle = null;
    if (entries.size > 0 || ws === null) return;
    const last = ws;
    ws = null;
    open = false;
    last.close(1000);
  }

  function request(entry) {
    const id = `c${++seq}`;
    byRequest.set(id, entry);
    send({ ...entry.build(), id });
  }

  function connect() {
    if (ws !== null || entries.size === 0 || typeof Socket !== 'function') return;
    ws = new Socket(url);
    const self = ws;
    self.onopen = () => {
      open = true;
      backoff = MIN_BACKOFF_MS;
      for (const e of entries) request(e);
    };
    self.onmessage = (ev) => {
      let m;
      try {
        m = JSON.parse(typeof ev.data === 'string' ? ev.data : String(ev.data));
      } catch {
        return;
      }
      if (m.op === 'subscribed' && byRequest.has(m.id)) {
        const e = byRequest.get(m.id);
        byRequest.delete(m.id);
        if (!entries.has(e)) return send({ op: 'unsubscribe', id: `c${++seq}`, sub: m.sub });
        e.sub = m.sub;
        bySub.set(m.sub, e);
        e.onMessage(m);
      } else if (m.op === 'error' && byRequest.has(m.id)) {
        byRequest.delete(m.id);
      } else if (m.sub !== undefined && bySub.has(m.sub)) {
        bySub.get(m.sub).onMessage(m);
      }
    };
    self.onclose = () => {
      if (ws !== self) return;
      ws = null;
      open = false;
      byRequest.clear();
      bySub.clear();
      for (const e of entries) e.sub = null;
      if (entries.size === 0) return;
      retry = setTimeout(() => {
        retry = null;
        connect();
      }, backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    };
    self.onerror = () => {};
  }

  return {
    subscribe(build, onMessage) {
      const entry = { build, onMessage, sub: null };
      entries.add(entry);
      if (idle !== null) {
        clearTimeout(idle);
        idle = null;
      }
      if (open) request(entry);
      else if (retry === null) connect();
      return {
        close() {
          if (!entries.delete(entry)) return;
          if (entry.sub !== null && open) {
            bySub.delete(entry.sub);
            send({ op: 'unsubscribe', id: `c${++seq}`, sub: entry.sub });
          }
          // Kept a moment: a resolution switch unsubscribes, then subscribes again at once.
          if (entries.size === 0 && ws !== null && idle === null) idle = setTimeout(closeIdle, IDLE_CLOSE_MS);
        },
      };
    },
  };
}
