// Owns the Wilson score interval for a success rate (spec §3 principle 3, verdict
// `resolveRate.wilson95`). Wilson rather than the Wald interval because Wald collapses to
// zero width at 0/n and n/n and leaves [0, 1] for small n — exactly the benchmark cases.

import { StatsError, assertConfidence, assertCount } from './errors.js';
import { twoSidedCriticalValue } from './normal-quantile.js';

export interface ProportionInterval {
  /** successes / trials */
  readonly point: number;
  readonly lower: number;
  readonly upper: number;
}

/**
 * Wilson (1927) score interval:
 *   centre    = (p̂ + z²/2n) / (1 + z²/n)
 *   halfWidth = z / (1 + z²/n) · sqrt(p̂(1 − p̂)/n + z²/4n²)
 * with z = Φ⁻¹((1 + confidence) / 2).
 */
export function wilsonInterval(successes: number, trials: number, confidence = 0.95): ProportionInterval {
  assertCount('successes', successes);
  assertCount('trials', trials);
  assertConfidence(confidence);
  if (trials === 0) {
    throw new StatsError('no-trials', 'a Wilson interval needs at least one trial; report the rate as missing instead');
  }
  if (successes > trials) {
    throw new StatsError('invalid-count', `successes (${successes}) exceed trials (${trials})`);
  }
  const z = twoSidedCriticalValue(confidence);
  const n = trials;
  const point = successes / n;
  const zSquaredOverN = (z * z) / n;
  const denominator = 1 + zSquaredOverN;
  const centre = (point + zSquaredOverN / 2) / denominator;
  const halfWidth = (z / denominator) * Math.sqrt((point * (1 - point)) / n + zSquaredOverN / (4 * n));
  // At 0/n and n/n the bound is exactly 0 or 1 analytically; pin it so rounding cannot
  // print 2.8e-17 or 0.9999999999999999 into a verdict.
  const lower = successes === 0 ? 0 : Math.max(0, centre - halfWidth);
  const upper = successes === trials ? 1 : Math.min(1, centre + halfWidth);
  return { point, lower, upper };
}
