// Owns the seeded paired bootstrap for the relative median difference of an efficiency
// metric between two engines (spec §3 principle 3, verdict `pairwise[].diffDelta`).
// Paired: index i of both samples is the same task and trial, and resampling draws indices,
// so task difficulty cancels instead of inflating the interval.

import { StatsError, assertConfidence } from './errors.js';
import { assertFinite, median, sortedMedian } from './median.js';
import { createSeededRandom } from './seeded-random.js';

export interface BootstrapOptions {
  /** Unsigned 32-bit seed; recorded in the verdict so anyone can reproduce the interval. */
  readonly seed: number;
  readonly resamples?: number;
  readonly confidence?: number;
}

export interface RelativeMedianDelta {
  /** (median(a) − median(b)) / median(b); −0.22 means A's median is 22 % below B's. */
  readonly relMedian: number;
  readonly medianA: number;
  readonly medianB: number;
  /** Percentile bootstrap interval [lower, upper] at `confidence`. */
  readonly bootstrap: readonly [number, number];
  readonly confidence: number;
  readonly resamples: number;
  readonly seed: number;
}

export function relativeMedianDelta(a: readonly number[], b: readonly number[]): number {
  const medianB = median(b);
  if (medianB === 0) {
    throw new StatsError('zero-baseline-median', 'the relative median difference is undefined when median(b) is 0');
  }
  return (median(a) - medianB) / medianB;
}

/**
 * The statistic on each of `resamples` paired resamples, in draw order. Resample r draws
 * n indices with `nextIndex(n)` (see seeded-random.ts), takes a[i] and b[i] for each, and
 * computes the relative median delta. Exposed so the draw can be audited and tested.
 */
export function resampleRelativeMedianDeltas(
  a: readonly number[],
  b: readonly number[],
  options: { readonly seed: number; readonly resamples: number },
): number[] {
  assertPairedSamples(a, b);
  const { seed, resamples } = options;
  if (!Number.isSafeInteger(resamples) || resamples < 1) {
    throw new StatsError('invalid-resamples', `resamples must be a positive integer; got ${String(resamples)}`);
  }
  const random = createSeededRandom(seed);
  const n = a.length;
  // Reused buffers: 10 000 resamples must not allocate 20 000 arrays.
  const resampledA = new Float64Array(n);
  const resampledB = new Float64Array(n);
  const deltas: number[] = [];
  for (let r = 0; r < resamples; r += 1) {
    for (let j = 0; j < n; j += 1) {
      const i = random.nextIndex(n);
      resampledA[j] = a[i] ?? Number.NaN;
      resampledB[j] = b[i] ?? Number.NaN;
    }
    resampledA.sort();
    resampledB.sort();
    const medianB = sortedMedian(resampledB);
    if (medianB === 0) {
      // Dropping the resample would bias the interval silently; make the caller decide.
      throw new StatsError(
        'zero-baseline-median-in-resample',
        `bootstrap resample ${r} has median(b) = 0, so the relative difference is undefined`,
      );
    }
    deltas.push((sortedMedian(resampledA) - medianB) / medianB);
  }
  return deltas;
}

/**
 * Point estimate plus percentile bootstrap CI. The interval's bounds are the
 * (1 − confidence)/2 and (1 + confidence)/2 quantiles of the resampled statistics, using
 * linear interpolation between order statistics (Hyndman & Fan type 7, the default of R
 * and NumPy): for sorted x[0..N−1] and level q, h = (N − 1)·q, and the quantile is
 * x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
 */
export function bootstrapRelativeMedianDelta(
  a: readonly number[],
  b: readonly number[],
  options: BootstrapOptions,
): RelativeMedianDelta {
  const { seed, resamples = 10_000, confidence = 0.95 } = options;
  assertConfidence(confidence);
  assertPairedSamples(a, b);
  const medianA = median(a);
  const medianB = median(b);
  if (medianB === 0) {
    throw new StatsError('zero-baseline-median', 'the relative median difference is undefined when median(b) is 0');
  }
  const relMedian = (medianA - medianB) / medianB;
  const deltas = Float64Array.from(resampleRelativeMedianDeltas(a, b, { seed, resamples }));
  deltas.sort();
  const bootstrap: [number, number] = [
    quantileOfSorted(deltas, (1 - confidence) / 2),
    quantileOfSorted(deltas, (1 + confidence) / 2),
  ];
  return { relMedian, medianA, medianB, bootstrap, confidence, resamples, seed };
}

/** Type-7 quantile of an ascending-sorted, non-empty array. */
export function quantileOfSorted(sorted: ArrayLike<number>, level: number): number {
  const h = (sorted.length - 1) * level;
  const below = Math.floor(h);
  const lower = sorted[below] ?? Number.NaN;
  const upper = sorted[Math.min(below + 1, sorted.length - 1)] ?? Number.NaN;
  // lower + 0·(upper − lower) keeps exact order statistics exact.
  return lower + (h - below) * (upper - lower);
}

function assertPairedSamples(a: readonly number[], b: readonly number[]): void {
  if (a.length !== b.length) {
    throw new StatsError(
      'length-mismatch',
      `paired samples need one b value per a value (same task and trial); got ${a.length} and ${b.length}`,
    );
  }
  if (a.length === 0) {
    throw new StatsError('empty-sample', 'a bootstrap needs at least one paired observation');
  }
  for (const value of a) assertFinite(value);
  for (const value of b) assertFinite(value);
}
