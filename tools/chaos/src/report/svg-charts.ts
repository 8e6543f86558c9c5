const escape = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

const width = 900;
const height = 260;
const margin = { top: 20, right: 20, bottom: 40, left: 50 };
const plotWidth = width - margin.left - margin.right;
const plotHeight = height - margin.top - margin.bottom;

/** A series of one line chart. */
export interface LineSeries {
  readonly name: string;
  readonly color: string;
  readonly values: readonly number[];
}

/** A vertical marker on a line chart (a fault), at an x in the same unit as the series' index. */
export interface ChartMarker {
  readonly x: number;
  readonly label: string;
}

const axis = (maxY: number, xLabel: string): string => {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => {
    const y = margin.top + plotHeight * (1 - share);
    return `<line x1="${String(margin.left)}" x2="${String(width - margin.right)}" y1="${String(y)}" y2="${String(y)}" stroke="#eee"/><text x="${String(margin.left - 6)}" y="${String(y + 4)}" text-anchor="end" font-size="11">${String(Math.round(maxY * share))}</text>`;
  });
  return `${ticks.join('')}<text x="${String(margin.left + plotWidth / 2)}" y="${String(height - 6)}" text-anchor="middle" font-size="12">${escape(xLabel)}</text>`;
};

/** A line chart with optional vertical markers, as an inline SVG element. */
export const lineChart = (
  series: readonly LineSeries[],
  markers: readonly ChartMarker[],
  xLabel: string,
): string => {
  const length = Math.max(1, ...series.map((line) => line.values.length));
  const maxY = Math.max(1, ...series.flatMap((line) => line.values));
  const x = (index: number) => margin.left + (plotWidth * index) / Math.max(1, length - 1);
  const y = (value: number) => margin.top + plotHeight * (1 - value / maxY);
  const lines = series.map(
    (line) =>
      `<polyline fill="none" stroke="${line.color}" stroke-width="1.5" points="${line.values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(' ')}"/>`,
  );
  const marks = markers.map(
    (marker) =>
      `<line x1="${x(marker.x).toFixed(1)}" x2="${x(marker.x).toFixed(1)}" y1="${String(margin.top)}" y2="${String(margin.top + plotHeight)}" stroke="#d33" stroke-dasharray="3,3"><title>${escape(marker.label)}</title></line>`,
  );
  const legend = series.map(
    (line, index) =>
      `<text x="${String(margin.left + 10 + index * 160)}" y="${String(margin.top + 12)}" fill="${line.color}" font-size="12">${escape(line.name)}</text>`,
  );
  const xTicks = [0, 0.25, 0.5, 0.75, 1].map(
    (share) =>
      `<text x="${x((length - 1) * share).toFixed(1)}" y="${String(margin.top + plotHeight + 16)}" text-anchor="middle" font-size="11">${String(Math.round((length - 1) * share))}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${String(width)} ${String(height)}" width="${String(width)}" height="${String(height)}">${axis(maxY, xLabel)}${xTicks.join('')}${marks.join('')}${lines.join('')}${legend.join('')}</svg>`;
};

/** A bar chart of labelled values, as an inline SVG element. */
export const barChart = (
  bars: readonly { readonly label: string; readonly value: number }[],
  xLabel: string,
): string => {
  const maxY = Math.max(1, ...bars.map((bar) => bar.value));
  const slot = plotWidth / Math.max(1, bars.length);
  const rects = bars.map((bar, index) => {
    const barHeight = (plotHeight * bar.value) / maxY;
    const left = margin.left + index * slot + slot * 0.15;
    return `<rect x="${left.toFixed(1)}" y="${(margin.top + plotHeight - barHeight).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${barHeight.toFixed(1)}" fill="#4a7bd0"><title>${escape(`${bar.label}: ${String(bar.value)}`)}</title></rect><text x="${(left + slot * 0.35).toFixed(1)}" y="${String(margin.top + plotHeight + 16)}" text-anchor="middle" font-size="11">${escape(bar.label)}</text><text x="${(left + slot * 0.35).toFixed(1)}" y="${(margin.top + plotHeight - barHeight - 4).toFixed(1)}" text-anchor="middle" font-size="11">${String(bar.value)}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${String(width)} ${String(height)}" width="${String(width)}" height="${String(height)}">${axis(maxY, xLabel)}${rects.join('')}</svg>`;
};

export { escape as escapeHtml };
