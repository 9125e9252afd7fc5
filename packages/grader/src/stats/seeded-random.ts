// Owns the grader's seeded pseudo-random generator, so a verdict's bootstrap CIs can be
// reproduced bit for bit from the seed it records (verdict `diffDelta.seed`). It is
// deliberately independent of simulator/world/random.ts: the grader must not depend on the
// simulator, and an auditor should be able to re-implement this from the comment alone.
//
// Algorithm (32-bit SplitMix: a Weyl sequence finished with MurmurHash3's fmix32), all
// arithmetic on unsigned 32-bit integers modulo 2^32:
//   state ← seed
//   next():  state ← state + 0x9E3779B9
//            z ← state
//            z ← (z XOR (z >>> 16)) × 0x85EBCA6B
//            z ← (z XOR (z >>> 13)) × 0xC2B2AE35
//            z ←  z XOR (z >>> 16)
//            return z
// Uniform index in [0, n) without modulo bias (rejection sampling):
//   limit ← 2^32 − (2^32 mod n);  repeat r ← next() until r < limit;  return r mod n
// Period 2^32, ample for 10 000 resamples of a few thousand trials. Not cryptographic.

import { StatsError } from './errors.js';

const TWO_TO_32 = 2 ** 32;

export interface SeededRandom {
  /** Next output as an unsigned 32-bit integer. */
  nextUint32(): number;
  /** Uniform integer in [0, n), for 1 ≤ n ≤ 2^32. */
  nextIndex(n: number): number;
}

export function createSeededRandom(seed: number): SeededRandom {
  if (!Number.isInteger(seed) || seed < 0 || seed >= TWO_TO_32) {
    throw new StatsError('invalid-seed', `seed must be an integer in [0, 2^32); got ${String(seed)}`);
  }
  let state = seed >>> 0;

  const nextUint32 = (): number => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b); // Math.imul: exact low 32 bits of the product
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };

  const nextIndex = (n: number): number => {
    if (!Number.isInteger(n) || n < 1 || n > TWO_TO_32) {
      throw new RangeError(`nextIndex needs an integer n in [1, 2^32]; got ${String(n)}`);
    }
    const limit = TWO_TO_32 - (TWO_TO_32 % n);
    let r = nextUint32();
    while (r >= limit) r = nextUint32();
    return r % n;
  };

  return { nextUint32, nextIndex };
}
