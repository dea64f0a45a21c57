// The embeddable chart (/embed/chart?symbol=ADDRESS&resolution=15&theme=dark|light): the chart
// alone, for an iframe on a partner's site. Calls only public routes; needs no key. A token off the
// default chain is symbol=chain:address (docs/chains.md).
import { $, fill } from './dom.js';
import { createTokenChart, RESOLUTIONS, RESOLUTION_VALUES } from './chart.js';
import { startLive } from './live.js';
import * as fmt from './format.js';

const params = new URLSearchParams(location.search);
const theme = params.get('theme') === 'light' ? 'light' : 'dark';
const resolution = RESOLUTION_VALUES.includes(params.get('resolution')) ? params.get('resolution') : '15';
const symbol = params.get('symbol') ?? '';
document.documentElement.dataset.theme = theme;

const chart = createTokenChart($('#chart'), { theme, onChange: legend });
fill($('#legend-resolution'), RESOLUTIONS.find(([v]) => v === resolution)?.[1] ?? resolution);

function legend(state) {
  fill($('#legend-symbol'), state.status === 'error' ? symbol : (state.name ?? symbol));
  fill($('#legend-price'), state.lastClose === null ? '' : fmt.price(state.lastClose));
  if (state.ticker) $('#full-link').href = '/?' + new URLSearchParams({ symbol: state.ticker, resolution }).toString();
}

chart.chart.subscribeCrosshairMove((p) => {
  const bar = p.seriesData && [...p.seriesData.values()].find((d) => d.open !== undefined);
  fill($('#legend-ohlc'), bar ? `O ${fmt.price(bar.open)} H ${fmt.price(bar.high)} L ${fmt.price(bar.low)} C ${fmt.price(bar.close)}` : '');
});

chart.load(symbol, resolution);
startLive(chart, { poll: () => chart.refresh() });
