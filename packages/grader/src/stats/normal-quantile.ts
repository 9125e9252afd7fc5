// Owns the inverse of the standard normal CDF, which turns a confidence level into the
// critical value z (0.95 -> 1.959963984540054) for Wilson intervals.
//
// Algorithm: Wichura, M. J. (1988) "Algorithm AS 241: The Percentage Points of the Normal
// Distribution", Applied Statistics 37(3):477-484, routine PPND16 (about 1e-16 relative
// accuracy). Three rational approximations, chosen by distance from the median:
//   q = p - 0.5
//   |q| <= 0.425:  r = 0.180625 - q^2;  z = q * A(r) / B(r)
//   otherwise:     r = sqrt(-ln(min(p, 1 - p)))
//                  r <= 5: z = C(r - 1.6) / D(r - 1.6)
//                  r >  5: z = E(r - 5) / F(r - 5)
//                  z takes the sign of q.
// A..F are degree-7 polynomials with the published coefficients below (lowest order first;
// B, D and F have constant term 1). We implement it rather than Acklam's approximation
// because Acklam alone is only good to ~1e-9 and would need a refinement step with erfc.

import { StatsError } from './errors.js';
/* eslint-disable no-loss-of-precision -- the coefficients are quoted digit for digit from the
   paper so an auditor can check them; rounding to the nearest double at parse is intended. */
const A = [
  3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125, 45921.953931549871457,
  67265.770927008700853, 33430.575583588128105, 2509.0809287301226727,
] as const;
const B = [
  1, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077, 21213.794301586595867, 39307.89580009271061,
  28729.085735721942674, 5226.495278852854561,
] as const;
const C = [
  1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504, 1.27045825245236838258,
  0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4,
] as const;
const D = [
  1, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455, 0.14810397642748007459,
  0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9,
] as const;
const E = [
  6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123, 0.026532189526576123093,
  0.0012426609473880784386, 2.71155556874348757815e-5, 2.01033439929228813265e-7,
] as const;
const F = [
  1, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525, 7.868691311456132591e-4,
  1.8463183175100546818e-5, 1.4215117583164458887e-7, 2.04426310338993978564e-15,
] as const;
/* eslint-enable no-loss-of-precision */

/** Horner evaluation; coefficients are lowest order first. */
function polynomial(coefficients: readonly number[], x: number): number {
  let sum = 0;
  for (let i = coefficients.length - 1; i >= 0; i -= 1) {
    sum = sum * x + (coefficients[i] ?? 0);
  }
  return sum;
}

/** Φ⁻¹(p): the z with P(Z ≤ z) = p for a standard normal Z. Returns ±Infinity at p = 0 or 1. */
export function inverseNormalCdf(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) {
    throw new StatsError('invalid-probability', `inverseNormalCdf needs p in [0, 1]; got ${String(p)}`);
  }
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * polynomial(A, r)) / polynomial(B, r);
  }
  let r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  let z: number;
  if (r <= 5) {
    r -= 1.6;
    z = polynomial(C, r) / polynomial(D, r);
  } else {
    r -= 5;
    z = polynomial(E, r) / polynomial(F, r);
  }
  return q < 0 ? -z : z;
}

/** Two-sided critical value: the z leaving (1 - confidence) / 2 in each tail. */
export function twoSidedCriticalValue(confidence: number): number {
  return inverseNormalCdf((1 + confidence) / 2);
}
