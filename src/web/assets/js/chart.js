// The token chart of the home and embed pages: lightweight-charts (loaded as the standalone
// script, window.LightweightCharts) with candles and volume, fed by /udf/symbols and
// /udf/history. `refresh()` fetches only the newest bars and updates them in place; the page
// calls it on its timer. The chart's state is published on window.__chart (read by the browser
// tests and handy when debugging).
import { getJson, qs } from './api.js';
import { priceText } from './format.js';

/** The resolution buttons: UDF value and label. */
export const RESOLUTIONS = [
  ['1S', '1s'],
  ['5S', '5s'],
  ['15S', '15s'],
  ['1', '1m'],
  ['5', '5m'],
  ['15', '15m'],
  ['30', '30m'],
  ['60', '1h'],
  ['240', '4h'],
  ['1D', '1D'],
  ['1W', '1W'],
  ['1M', '1M'],
];
export const RESOLUTION_VALUES = RESOLUTIONS.map(([v]) => v);
const COUNTBACK = 300;

const THEMES = {
  dark: { bg: '#0f1419', text: '#aab6c5', grid: '#1b2330', border: '#263040', up: '#26a69a', down: '#ef5350' },
  light: { bg: '#ffffff', text: '#3b4757', grid: '#eef1f5', border: '#d9dee6', up: '#138a7e', down: '#d93b38' },
};

/** Nominal seconds of a resolution (months as 30 days): for spacing checks only. */
export function resolutionSeconds(r) {
  const m = /^(\d*)([SDWM]?)$/.exec(r);
  if (!m) return 60;
  const n = Number(m[1] || 1);
  return n * { S: 1, '': 60, D: 86400, W: 604800, M: 2592000 }[m[2]];
}

/**
 * Creates a chart in `container`. `onChange(state)` is called after every load and refresh.
 * Returns { load(symbol, resolution), refresh(), state }.
 */
export function createTokenChart(container, { theme = 'dark', onChange = () => {} } = {}) {
  const LWC = window.LightweightCharts;
  const c = THEMES[theme] ?? THEMES.dark;
  const message = document.createElement('div');
  message.className = 'chart-message';
  container.append(message);

  const chart = LWC.createChart(container, {
    autoSize: true,
    layout: { background: { type: LWC.ColorType.Solid, color: c.bg }, textColor: c.text, attributionLogo: false },
    grid: { vertLines: { color: c.grid }, horzLines: { color: c.grid } },
    rightPriceScale: { borderColor: c.border },
    timeScale: { borderColor: c.border, timeVisible: true, secondsVisible: false },
  });
  const candles = chart.addSeries(LWC.CandlestickSeries, {
    upColor: c.up,
    downColor: c.down,
    wickUpColor: c.up,
    wickDownColor: c.down,
    borderVisible: false,
  });
  // Room above the candles and below them (for the volume bars) is added to the price range
  // itself, clamped at zero, instead of scale margins: margins extend the axis linearly past the
  // lowest candle, which showed negative prices whenever the range was wide (1h, 1D).
  candles.applyOptions({ autoscaleInfoProvider: (original) => withRoom(original()) });
  candles.priceScale().applyOptions({ scaleMargins: { top: 0.02, bottom: 0 } });
  const volume = chart.addSeries(LWC.HistogramSeries, {
    priceFormat: { type: 'volume' },
    priceScaleId: 'volume',
    lastValueVisible: false,
    priceLineVisible: false,
  });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  // A wallet's trades (/udf/marks) as markers on the candles: B under the bar, S above it.
  const markers = LWC.createSeriesMarkers(candles, []);
  let shownMarks = null;

  const state = {
    status: 'idle',
    symbol: null,
    ticker: null,
    name: null,
    description: null,
    resolution: null,
    bars: 0,
    firstTime: null,
    lastTime: null,
    minSpacing: null,
    lastClose: null,
    historyRequests: [],
    loads: 0,
    refreshes: 0,
    error: null,
    markers: 0,
  };
  window.__chart = state;
  // For the browser tests: the prices at the bottom and top of the visible axis, and how it labels a price.
  window.__chartAxis = (sample) => {
    const { height } = chart.paneSize(0);
    return { bottom: candles.coordinateToPrice(height - 1), top: candles.coordinateToPrice(0), sample: candles.priceFormatter().format(sample) };
  };

  let generation = 0;
  let clockOffset = 0; // server seconds minus browser seconds
  let last = null; // the newest bar shown

  const serverNow = () => Math.floor(Date.now() / 1000 + clockOffset);
  const show = (text) => {
    message.textContent = text ?? '';
    message.hidden = !text;
  };
  const volumeBar = (b) => ({ time: b.time, value: b.volume, color: (b.close >= b.open ? c.up : c.down) + '80' });

  async function history(params) {
    const url = '/udf/history?' + qs(params);
    state.historyRequests.push(url);
    if (state.historyRequests.length > 200) state.historyRequests.splice(0, 100);
    const h = await getJson(url);
    if (h.s !== 'ok') return [];
    return h.t.map((t, i) => ({ time: t, open: h.o[i], high: h.h[i], low: h.l[i], close: h.c[i], volume: h.v[i] }));
  }

  function publish(bars) {
    state.bars = bars.length;
    state.firstTime = bars[0]?.time ?? null;
    state.lastTime = bars.at(-1)?.time ?? null;
    state.lastClose = bars.at(-1)?.close ?? null;
    let min = null;
    for (let i = 1; i < bars.length; i++) {
      const d = bars[i].time - bars[i - 1].time;
      if (min === null || d < min) min = d;
    }
    state.minSpacing = min;
  }

  /** Loads a token (address or symbol) at a resolution: the COUNTBACK newest bars. */
  async function load(symbol, resolution) {
    const gen = ++generation;
    Object.assign(state, { status: 'loading', symbol, resolution, error: null });
    show('Loading…');
    try {
      const [info, time] = await Promise.all([getJson('/udf/symbols?' + qs({ symbol })), getJson('/udf/time')]);
      if (gen !== generation) return state;
      if (typeof time === 'number') clockOffset = time - Date.now() / 1000;
      const precision = Math.max(0, Math.round(Math.log10(info.pricescale || 100)));
      candles.applyOptions({ priceFormat: { type: 'custom', formatter: priceText, minMove: 1 / 10 ** precision } });
      chart.applyOptions({ timeScale: { secondsVisible: /S$/.test(resolution) } });
      Object.assign(state, { ticker: info.ticker, name: info.name, description: info.description });
      const bars = await history({ symbol: info.ticker, resolution, from: 0, to: serverNow() + 1, countback: COUNTBACK });
      if (gen !== generation) return state;
      candles.setData(bars);
      volume.setData(bars.map(volumeBar));
      chart.timeScale().fitContent();
      markers.setMarkers([]);
      shownMarks = null;
      state.markers = 0;
      last = bars.at(-1) ?? null;
      publish(bars);
      state.loads++;
      state.status = bars.length > 0 ? 'ready' : 'no_data';
      show(bars.length > 0 ? null : 'No trades yet');
    } catch (err) {
      if (gen !== generation) return state;
      candles.setData([]);
      volume.setData([]);
      publish([]);
      last = null;
      state.status = 'error';
      state.error = err.status === 404 ? 'Unknown token' : err.message;
      show(state.error);
    }
    onChange(state);
    return state;
  }

  /** Fetches the two newest bars and updates the chart; reloads when bars were missed. */
  async function refresh() {
    if (state.status !== 'ready' && state.status !== 'no_data') return state;
    const gen = generation;
    try {
      const bars = await history({ symbol: state.ticker, resolution: state.resolution, from: 0, to: serverNow() + 1, countback: 2 });
      if (gen !== generation || bars.length === 0) return state;
      if (last === null || bars[0].time > last.time) return load(state.symbol, state.resolution);
      for (const b of bars) {
        if (b.time < last.time) continue;
        candles.update(b);
        volume.update(volumeBar(b));
        if (b.time > last.time) state.bars++;
        last = b;
      }
      state.lastTime = last.time;
      state.lastClose = last.close;
      state.refreshes++;
      onChange(state);
    } catch {
      // A failed refresh is retried on the next tick; the chart keeps what it shows.
    }
    return state;
  }

  /**
   * Shows marks as /udf/marks gives them (columns; times in seconds), each on the bar that holds its
   * trade: the newest bar starting at or before it (a marker must sit on a bar of the series).
   */
  function setMarks(m) {
    shownMarks = m;
    const times = candles.data().map((b) => b.time);
    const list = [];
    for (let i = 0; i < (m?.id?.length ?? 0); i++) {
      let lo = 0;
      let hi = times.length - 1;
      if (hi < 0 || m.time[i] < times[0]) continue;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (times[mid] <= m.time[i]) lo = mid;
        else hi = mid - 1;
      }
      const buy = m.label[i] === 'B';
      list.push({
        time: times[lo],
        position: buy ? 'belowBar' : 'aboveBar',
        shape: buy ? 'arrowUp' : 'arrowDown',
        color: m.color[i],
        text: m.label[i],
        id: String(m.id[i]),
      });
    }
    markers.setMarkers(list);
    state.markers = list.length;
  }

  /** A bar pushed by the stream (live.js): updates the newest bar or adds one; older ones are ignored. */
  function applyBar(b) {
    if ((state.status !== 'ready' && state.status !== 'no_data') || (last !== null && b.time < last.time)) return;
    candles.update(b);
    volume.update(volumeBar(b));
    const added = last === null || b.time > last.time;
    if (added) state.bars++;
    last = b;
    Object.assign(state, { status: 'ready', lastTime: b.time, lastClose: b.close });
    // Marks of the newest trades may belong on the bar just added.
    if (added && shownMarks?.id?.length > 0) setMarks(shownMarks);
    show(null);
    onChange(state);
  }

  return { load, refresh, applyBar, setMarks, state, chart };
}

/** The candles' range with 8 % of room above and 26 % below (the volume bars), never below zero. */
function withRoom(info) {
  if (!info || !info.priceRange) return info;
  const { minValue, maxValue } = info.priceRange;
  const span = maxValue - minValue || Math.abs(maxValue) * 0.02 || 1;
  const inner = 1 - 0.08 - 0.26;
  return {
    ...info,
    priceRange: { minValue: Math.max(0, minValue - (span * 0.26) / inner), maxValue: maxValue + (span * 0.08) / inner },
  };
}

/**
 * Calls `fn` every `ms` after the previous call finished (never overlapping), skipping ticks
 * while the page is hidden. Returns a stop function.
 */
export function every(ms, fn) {
  let timer = null;
  let stopped = false;
  const tick = async () => {
    if (!document.hidden) {
      try {
        await fn();
      } catch {
        // next tick
      }
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  timer = setTimeout(tick, ms);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
