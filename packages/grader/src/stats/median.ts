// Owns the sample median used for every efficiency metric (diff bytes, tokens, wall clock,
// cost). Medians, not means, because one runaway trial must not move an engine's number.

import { StatsError } from './errors.js';

/** Median of values; for even n the mean of the two middle values. Does not mutate input. */
export function median(values: readonly number[]): number {
  if (values.length === 0) {
    throw new StatsError('empty-sample', 'the median of an empty sample is undefined');
  }
  const sorted = Float64Array.from(values);
  for (const value of sorted) assertFinite(value);
  sorted.sort(); // typed-array sort is numeric, unlike Array#sort's default
  return sortedMedian(sorted);
}

/** Median of an already ascending-sorted, non-empty array. */
export function sortedMedian(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  const upperMiddle = sorted[n >> 1] ?? Number.NaN;
  if (n % 2 === 1) return upperMiddle;
  const lowerMiddle = sorted[(n >> 1) - 1] ?? Number.NaN;
  // Halve before adding so two huge values cannot overflow to Infinity.
  return lowerMiddle / 2 + upperMiddle / 2;
}

export function assertFinite(value: number): void {
  if (!Number.isFinite(value)) {
    throw new StatsError('non-finite-value', `sample values must be finite numbers; got ${String(value)}`);
  }
}
