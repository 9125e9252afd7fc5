// Owns the report's efficiency plots: one inline SVG strip plot per metric, a row per engine, a dot per resolved
// trial and a bar at the median. Plain SVG with <title> tooltips, so it reads without JavaScript.
import type { GatedMetric } from '@abp/protocol/schemas/abp-baseline';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { formatMetric, metricLabels } from '../results/index.js';
import { median } from '../stats/index.js';
import { escapeHtml } from './html.js';

const WIDTH = 720;
const LABEL_WIDTH = 170;
const RIGHT = 24;
const TOP = 8;
const ROW_HEIGHT = 36;
const AXIS_HEIGHT = 28;
const TICKS = 4;

/** A strip plot of `metric` over the resolved trials of each engine, in the order given. */
export function stripPlot(metric: GatedMetric, engines: readonly string[], trials: readonly AbpTrial[]): string {
  const rows = engines.map((engine) => ({
    engine,
    points: trials.flatMap((trial) => {
      const value = trial.metrics[metric];
      return trial.engine === engine && trial.outcome === 'resolved' && value !== null ? [{ trial, value }] : [];
    }),
  }));
  const largest = Math.max(0, ...rows.flatMap((row) => row.points.map((point) => point.value)));
  const step = niceStep(largest / TICKS);
  const top = step * Math.max(1, Math.ceil(largest / step));
  const plotWidth = WIDTH - LABEL_WIDTH - RIGHT;
  const x = (value: number) => fixed(LABEL_WIDTH + (value / top) * plotWidth);
  const axisY = TOP + rows.length * ROW_HEIGHT;
  const height = axisY + AXIS_HEIGHT;
  const label = metricLabels[metric];

  const body = rows.map((row, index) => {
    const middle = TOP + index * ROW_HEIGHT + ROW_HEIGHT / 2;
    const name = `<text x="${LABEL_WIDTH - 10}" y="${fixed(middle + 4)}" text-anchor="end">${escapeHtml(row.engine)}</text>`;
    if (row.points.length === 0)
      return `${name}<text x="${LABEL_WIDTH}" y="${fixed(middle + 4)}" class="empty">no resolved trial with a value</text>`;
    // A fixed vertical spread instead of random jitter: the same run draws the same picture.
    const dots = row.points.map(({ trial, value }, position) => {
      const title = `${trial.task}, trial ${trial.trial}: ${formatMetric(metric, value)}`;
      return `<circle cx="${x(value)}" cy="${fixed(middle + ((position % 5) - 2) * 3)}" r="3.5"><title>${escapeHtml(title)}</title></circle>`;
    });
    const centre = median(row.points.map((point) => point.value));
    const bar = `<line class="median" x1="${x(centre)}" x2="${x(centre)}" y1="${fixed(middle - 12)}" y2="${fixed(middle + 12)}"><title>${escapeHtml(`median ${formatMetric(metric, centre)}`)}</title></line>`;
    return `${name}${dots.join('')}${bar}`;
  });

  const ticks: string[] = [];
  for (let index = 0; index <= Math.round(top / step); index += 1) {
    const value = index * step;
    ticks.push(
      `<line class="grid" x1="${x(value)}" x2="${x(value)}" y1="${TOP}" y2="${axisY}"/>` +
        `<text x="${x(value)}" y="${axisY + 18}" text-anchor="middle">${escapeHtml(formatMetric(metric, value))}</text>`,
    );
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="plot" data-metric="${metric}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(`${label} of resolved trials per engine`)}">` +
    `<title>${escapeHtml(`${label} of resolved trials per engine`)}</title>${ticks.join('')}` +
    `<line class="axis" x1="${LABEL_WIDTH}" x2="${WIDTH - RIGHT}" y1="${axisY}" y2="${axisY}"/>${body.join('')}</svg>`
  );
}

/** 1, 2 or 5 times a power of ten, at least `raw`: tick steps a reader can add up. */
function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

// One decimal is finer than a pixel and keeps the markup short and stable.
function fixed(value: number): string {
  return value.toFixed(1);
}
