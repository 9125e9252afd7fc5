import { describe, expect, it } from 'vitest';
// Through the barrel the verdict builder will use, so its re-exports are checked too.
import { mcnemarExact, pairOutcomes } from '../../src/stats/index.js';
import { codeOf } from '../support/stats-error.js';

describe('mcnemarExact', () => {
  it('b = 14, c = 5 → p = 0.063568115234375 (the spec §8 example prints 0.041, which is not the exact value)', () => {
    // Exact: 2 · Σ_{i≤5} C(19, i) / 2^19 = 2 · 16 664 / 524 288 = 33 328 / 524 288. This equals
    // scipy.stats.binomtest(5, 19, 0.5).pvalue (two-sided; symmetric at p = 1/2). The spec's
    // 0.041 matches neither this nor the χ² approximations (χ² = 81/19 → p ≈ 0.039; with
    // continuity correction ≈ 0.067), so we treat it as illustrative and assert the exact value.
    const result = mcnemarExact(14, 5);
    expect(result.discordant).toEqual([14, 5]);
    expect(result.pExact).toBe(33_328 / 524_288);
    expect(result.pExact).toBe(0.063568115234375);
  });

  it('no discordant pairs → p = 1', () => {
    expect(mcnemarExact(0, 0)).toEqual({ discordant: [0, 0], pExact: 1 });
  });

  it('b = 10, c = 0 → p = 2 · 0.5^10 = 0.001953125', () => {
    expect(mcnemarExact(10, 0).pExact).toBe(0.001953125);
  });

  it('is symmetric in b and c, and keeps the order given', () => {
    for (const [b, c] of [
      [14, 5],
      [10, 0],
      [7, 2],
      [100, 80],
    ] as const) {
      expect(mcnemarExact(c, b).pExact).toBe(mcnemarExact(b, c).pExact);
      expect(mcnemarExact(c, b).discordant).toEqual([c, b]);
    }
  });

  // Exact references computed with Python's fractions.Fraction and math.comb:
  // float(min(1, Fraction(2 * sum(comb(n, i) for i in range(k + 1)), 2**n))).
  it.each([
    [7, 2, 0.1796875],
    [12, 6, 0.237884521484375],
    [3, 3, 1],
    [1, 0, 1],
    [59, 4, 1.3821257506541063e-13],
    [100, 80, 0.1565314695781511],
    [1500, 1400, 0.06598734966518381],
    [2000, 1000, 1.0090148627941341e-75], // n > 1023: 2^n overflows a double, BigInt does not
  ])('b = %i, c = %i → p = %d', (b, c, p) => {
    expect(mcnemarExact(b, c).pExact).toBeCloseTo(p, 14);
    expect(Math.abs(mcnemarExact(b, c).pExact - p) / p).toBeLessThan(1e-13);
  });

  it('rejects negative or fractional counts', () => {
    expect(codeOf(() => mcnemarExact(-1, 3))).toBe('invalid-count');
    expect(codeOf(() => mcnemarExact(2.5, 3))).toBe('invalid-count');
  });
});

describe('pairOutcomes', () => {
  it('tallies the 2×2 table of paired (task, trial) outcomes', () => {
    const a = [true, true, false, false, true, false, true];
    const b = [true, false, true, false, false, false, true];
    expect(pairOutcomes(a, b)).toEqual({ bothResolved: 2, onlyA: 2, onlyB: 1, neither: 2 });
  });

  it('feeds McNemar with [onlyA, onlyB]', () => {
    const a = [...Array<boolean>(14).fill(true), ...Array<boolean>(5).fill(false), true, false];
    const b = [...Array<boolean>(14).fill(false), ...Array<boolean>(5).fill(true), true, false];
    const table = pairOutcomes(a, b);
    expect(mcnemarExact(table.onlyA, table.onlyB)).toEqual({ discordant: [14, 5], pExact: 0.063568115234375 });
  });

  it('requires equal lengths', () => {
    expect(codeOf(() => pairOutcomes([true], [true, false]))).toBe('length-mismatch');
  });
});
