// Owns the paired comparison of two engines' resolve outcomes (spec §3 principle 3,
// verdict `pairwise[].mcnemar`): building the 2×2 table from paired trials and the exact
// McNemar test on its discordant cells. Exact rather than the χ² approximation because
// discordant counts in a benchmark are small, where χ² is badly calibrated.

import { StatsError, assertCount } from './errors.js';

export interface PairedOutcomes {
  readonly bothResolved: number;
  /** A resolved, B did not: McNemar's b. */
  readonly onlyA: number;
  /** B resolved, A did not: McNemar's c. */
  readonly onlyB: number;
  readonly neither: number;
}

/**
 * Tallies paired outcomes. Index i of both arrays must be the same (task, trial) pair;
 * the caller aligns them, since only it knows the pairing keys.
 */
export function pairOutcomes(aResolved: readonly boolean[], bResolved: readonly boolean[]): PairedOutcomes {
  if (aResolved.length !== bResolved.length) {
    throw new StatsError(
      'length-mismatch',
      `paired outcomes need one B outcome per A outcome; got ${aResolved.length} and ${bResolved.length}`,
    );
  }
  let bothResolved = 0;
  let onlyA = 0;
  let onlyB = 0;
  let neither = 0;
  aResolved.forEach((a, i) => {
    const b = bResolved[i] === true;
    if (a && b) bothResolved += 1;
    else if (a) onlyA += 1;
    else if (b) onlyB += 1;
    else neither += 1;
  });
  return { bothResolved, onlyA, onlyB, neither };
}

export interface McNemarResult {
  /** [b, c]: [A only, B only], in the order given. */
  readonly discordant: readonly [number, number];
  readonly pExact: number;
}

/**
 * Exact two-sided McNemar test: under H0 each discordant pair is A-only with probability
 * 1/2, so with n = b + c and k = min(b, c),
 *   p = min(1, 2 · P(X ≤ k)),  X ~ Binomial(n, 1/2)  =  min(1, Σ_{i≤k} C(n, i) / 2^(n−1)).
 * The sum is computed exactly in BigInt, so the only rounding is the final conversion to a
 * double; n = 0 (no discordant pairs) gives p = 1.
 */
export function mcnemarExact(b: number, c: number): McNemarResult {
  assertCount('b', b);
  assertCount('c', c);
  const n = b + c;
  const k = Math.min(b, c);
  // 2·P(X ≤ k) ≥ 1 whenever k ≥ n/2 (b = c), including n = 0; skip the sum.
  if (2 * k >= n) return { discordant: [b, c], pExact: 1 };
  let term = 1n; // C(n, 0)
  let tail = 1n;
  for (let i = 0; i < k; i += 1) {
    term = (term * BigInt(n - i)) / BigInt(i + 1); // exact: C(n, i+1) = C(n, i)·(n−i)/(i+1)
    tail += term;
  }
  return { discordant: [b, c], pExact: Math.min(1, scaleByPowerOfTwo(tail, -(n - 1))) };
}

/** value · 2^exponent as a double, without overflowing on the way (n can exceed 1023). */
function scaleByPowerOfTwo(value: bigint, exponent: number): number {
  // Keep at most 1000 significant bits so Number() stays finite; the dropped bits are far
  // below double precision.
  const excessBits = Math.max(0, value.toString(2).length - 1000);
  let result = Number(value >> BigInt(excessBits));
  let remaining = exponent + excessBits;
  // Apply the power of two in steps that are each representable; each step is exact
  // until the result itself underflows.
  while (remaining < -1000) {
    result *= 2 ** -1000;
    remaining += 1000;
  }
  while (remaining > 1000) {
    result *= 2 ** 1000;
    remaining -= 1000;
  }
  return result * 2 ** remaining;
}
