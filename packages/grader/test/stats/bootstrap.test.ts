import { describe, expect, it } from 'vitest';
import {
  bootstrapRelativeMedianDelta,
  quantileOfSorted,
  relativeMedianDelta,
  resampleRelativeMedianDeltas,
} from '../../src/stats/bootstrap.js';
import { median } from '../../src/stats/median.js';
import { codeOf } from '../support/stats-error.js';

// Twelve paired diff sizes (bytes), A usually smaller than B.
const diffBytesA = [1200, 950, 3100, 400, 780, 2250, 1650, 505, 890, 1320, 2600, 710];
const diffBytesB = [1500, 1100, 2900, 650, 800, 3000, 2100, 700, 1000, 1700, 2500, 1200];

describe('median', () => {
  it('takes the middle value, or the mean of the two middle values for even n', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([10, 2, 33, 4, 5, 100])).toBe(7.5); // numeric, not lexicographic, order
    expect(median([7])).toBe(7);
  });

  it('does not mutate its input and rejects empty or non-finite samples', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
    expect(codeOf(() => median([]))).toBe('empty-sample');
    expect(codeOf(() => median([1, Number.NaN]))).toBe('non-finite-value');
  });
});

describe('quantileOfSorted (type 7)', () => {
  it('interpolates linearly between order statistics', () => {
    const sorted = [1, 2, 3, 4, 5];
    expect(quantileOfSorted(sorted, 0)).toBe(1);
    expect(quantileOfSorted(sorted, 1)).toBe(5);
    expect(quantileOfSorted(sorted, 0.5)).toBe(3);
    expect(quantileOfSorted(sorted, 0.1)).toBeCloseTo(1.4, 12); // numpy.quantile([1..5], 0.1)
  });
});

describe('bootstrapRelativeMedianDelta', () => {
  it('is byte-identical for the same seed and differs for another seed', () => {
    const options = { seed: 20260718, resamples: 2000 };
    const first = JSON.stringify(bootstrapRelativeMedianDelta(diffBytesA, diffBytesB, options));
    const second = JSON.stringify(bootstrapRelativeMedianDelta(diffBytesA, diffBytesB, options));
    expect(second).toBe(first);
    const otherSeed = JSON.stringify(bootstrapRelativeMedianDelta(diffBytesA, diffBytesB, { ...options, seed: 7 }));
    expect(otherSeed).not.toBe(first);
  });

  it('matches an independent re-implementation of the documented algorithm', () => {
    // Reference computed by a separate Python re-implementation written from the comments in
    // grader/stats/seeded-random.ts and bootstrap.ts (same seed, 2000 resamples, type-7 quantiles).
    const result = bootstrapRelativeMedianDelta(diffBytesA, diffBytesB, { seed: 20260718, resamples: 2000 });
    expect(result.relMedian).toBe(-0.2037037037037037);
    expect(result.medianA).toBe(1075);
    expect(result.medianB).toBe(1350);
    expect(result.bootstrap).toEqual([-0.3333333333333333, -0.07608695652173914]);
    expect(result).toMatchObject({ seed: 20260718, resamples: 2000, confidence: 0.95 });
    expect(resampleRelativeMedianDeltas(diffBytesA, diffBytesB, { seed: 20260718, resamples: 3 })).toEqual([
      -0.2125, -0.21428571428571427, -0.22,
    ]);
  });

  it('identical samples → relMedian 0 and an interval containing 0', () => {
    const result = bootstrapRelativeMedianDelta(diffBytesB, diffBytesB, { seed: 1 });
    expect(result.relMedian).toBe(0);
    expect(result.bootstrap[0]).toBeLessThanOrEqual(0);
    expect(result.bootstrap[1]).toBeGreaterThanOrEqual(0);
  });

  it('b = 2·a → relMedian exactly −0.5, with the interval around it', () => {
    const doubled = diffBytesA.map((value) => 2 * value);
    const result = bootstrapRelativeMedianDelta(diffBytesA, doubled, { seed: 42 });
    expect(result.relMedian).toBe(-0.5);
    expect(result.bootstrap[0]).toBeLessThanOrEqual(-0.5);
    expect(result.bootstrap[1]).toBeGreaterThanOrEqual(-0.5);
  });

  it('contains the point estimate and narrows as confidence drops', () => {
    const wide = bootstrapRelativeMedianDelta(diffBytesA, diffBytesB, { seed: 3, confidence: 0.99 });
    const narrow = bootstrapRelativeMedianDelta(diffBytesA, diffBytesB, { seed: 3, confidence: 0.8 });
    expect(wide.bootstrap[0]).toBeLessThanOrEqual(wide.relMedian);
    expect(wide.bootstrap[1]).toBeGreaterThanOrEqual(wide.relMedian);
    expect(wide.bootstrap[0]).toBeLessThanOrEqual(narrow.bootstrap[0]);
    expect(wide.bootstrap[1]).toBeGreaterThanOrEqual(narrow.bootstrap[1]);
  });

  it('draws exactly the requested number of resamples, 10 000 by default', () => {
    expect(resampleRelativeMedianDeltas(diffBytesA, diffBytesB, { seed: 5, resamples: 137 })).toHaveLength(137);
    expect(bootstrapRelativeMedianDelta(diffBytesA, diffBytesB, { seed: 5 }).resamples).toBe(10_000);
    // Same stream: a shorter run is a prefix of a longer one.
    const short = resampleRelativeMedianDeltas(diffBytesA, diffBytesB, { seed: 5, resamples: 10 });
    const long = resampleRelativeMedianDeltas(diffBytesA, diffBytesB, { seed: 5, resamples: 20 });
    expect(long.slice(0, 10)).toEqual(short);
  });

  it('fails with codes instead of printing a meaningless number', () => {
    expect(codeOf(() => relativeMedianDelta([1, 2], [0, 0]))).toBe('zero-baseline-median');
    expect(codeOf(() => bootstrapRelativeMedianDelta([1, 2, 3], [0, 0, 5], { seed: 1 }))).toBe('zero-baseline-median');
    // median(b) = 1 overall, but some resamples draw mostly zeros.
    expect(codeOf(() => bootstrapRelativeMedianDelta([1, 2, 3], [0, 1, 5], { seed: 1 }))).toBe(
      'zero-baseline-median-in-resample',
    );
    expect(codeOf(() => bootstrapRelativeMedianDelta([1, 2], [1], { seed: 1 }))).toBe('length-mismatch');
    expect(codeOf(() => bootstrapRelativeMedianDelta([], [], { seed: 1 }))).toBe('empty-sample');
    expect(codeOf(() => bootstrapRelativeMedianDelta([1], [1], { seed: 1, resamples: 0 }))).toBe('invalid-resamples');
    expect(codeOf(() => bootstrapRelativeMedianDelta([1], [1], { seed: -1 }))).toBe('invalid-seed');
    expect(codeOf(() => bootstrapRelativeMedianDelta([1], [1], { seed: 2 ** 32 }))).toBe('invalid-seed');
    expect(codeOf(() => bootstrapRelativeMedianDelta([1], [1], { seed: 1, confidence: 1 }))).toBe('invalid-confidence');
  });
});
