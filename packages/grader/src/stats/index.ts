// The grader's statistics (spec §3 principle 3): one entry point for the verdict builder
// and `abp gate`. Each concept lives in its own module; this file only re-exports.

export { StatsError, type StatsErrorCode } from './errors.js';
export { inverseNormalCdf, twoSidedCriticalValue } from './normal-quantile.js';
export { wilsonInterval, type ProportionInterval } from './wilson.js';
export { mcnemarExact, pairOutcomes, type McNemarResult, type PairedOutcomes } from './mcnemar.js';
export { median } from './median.js';
export { createSeededRandom, type SeededRandom } from './seeded-random.js';
export {
  bootstrapRelativeMedianDelta,
  relativeMedianDelta,
  resampleRelativeMedianDeltas,
  quantileOfSorted,
  type BootstrapOptions,
  type RelativeMedianDelta,
} from './bootstrap.js';
