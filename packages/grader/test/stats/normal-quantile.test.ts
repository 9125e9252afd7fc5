import { describe, expect, it } from 'vitest';
import { inverseNormalCdf, twoSidedCriticalValue } from '../../src/stats/normal-quantile.js';

// References: Φ⁻¹ quantiles from standard tables (Abramowitz & Stegun 26.2), to 16 digits as
// given by CPython's statistics.NormalDist().inv_cdf; 1.959963984540054 is the true z_0.975
// (1.95996398454005423552…). AS 241 is ~1e-16 accurate, so we allow 1e-15.
const TOLERANCE = 1e-15;

describe('inverseNormalCdf (Wichura AS 241)', () => {
  it('gives z = 1.959963984540054 for a 95% two-sided interval', () => {
    expect(Math.abs(twoSidedCriticalValue(0.95) - 1.959963984540054)).toBeLessThan(TOLERANCE);
  });

  it.each([
    [0.5, 0],
    [0.9, 1.2815515655446004],
    [0.95, 1.6448536269514722],
    [0.995, 2.5758293035489004],
    [0.025, -1.959963984540054],
    [1e-10, -6.361340902404056], // far tail: the r > 5 branch
  ])('Φ⁻¹(%d) = %d', (p, z) => {
    expect(Math.abs(inverseNormalCdf(p) - z)).toBeLessThan(TOLERANCE * Math.max(1, Math.abs(z)) * 4);
  });

  it('is antisymmetric about 0.5 and infinite at the ends', () => {
    expect(inverseNormalCdf(0.2)).toBeCloseTo(-inverseNormalCdf(0.8), 14);
    expect(inverseNormalCdf(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(inverseNormalCdf(1)).toBe(Number.POSITIVE_INFINITY);
    expect(() => inverseNormalCdf(1.5)).toThrow(expect.objectContaining({ code: 'invalid-probability' }) as Error);
  });
});
