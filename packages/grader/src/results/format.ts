// How result numbers read in gate summaries and reports: one spelling everywhere, and independent of the
// machine's locale so the same run prints the same bytes on every host.
import type { GatedMetric } from '@abp/protocol/schemas/abp-baseline';

export const metricLabels: Record<GatedMetric, string> = {
  diffBytesNormalized: 'diff size',
  tokensTotal: 'tokens',
  wallClockMs: 'wall clock',
  computedUsd: 'cost',
};

/** A metric value with its unit: "1650 B", "361000", "190.3 s", "$1.42"; "—" for no value. */
export function formatMetric(metric: GatedMetric, value: number | null): string {
  if (value === null) return '—';
  switch (metric) {
    case 'diffBytesNormalized':
      return `${formatCount(value)} B`;
    case 'tokensTotal':
      return formatCount(value);
    case 'wallClockMs':
      return `${(value / 1000).toFixed(1)} s`;
    case 'computedUsd':
      return `$${value.toFixed(value >= 1 ? 2 : 4)}`;
  }
}

// Medians of even-sized samples can fall halfway between two counts.
function formatCount(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** 0.84 → "84.0%". */
export function formatPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

/** A relative or absolute change with its sign: 0.053 → "+5.3%", -0.22 → "-22.0%". */
export function formatChange(fraction: number): string {
  const text = formatPercent(fraction);
  return fraction > 0 ? `+${text}` : text;
}

export function formatInterval([lower, upper]: readonly [number, number], format: (value: number) => string): string {
  return `[${format(lower)}, ${format(upper)}]`;
}

/** Exact p-values span many orders of magnitude; three decimals down to 0.001, then scientific. */
export function formatPValue(p: number): string {
  return p >= 0.001 || p === 0 ? p.toFixed(3) : p.toExponential(1);
}
