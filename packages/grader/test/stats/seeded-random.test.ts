import { describe, expect, it } from 'vitest';
import { StatsError } from '../../src/stats/errors.js';
import { createSeededRandom } from '../../src/stats/seeded-random.js';

// Reference streams from an independent Python implementation of the algorithm as written in
// the module header of grader/stats/seeded-random.ts (Weyl step 0x9E3779B9, fmix32).
describe('createSeededRandom (32-bit SplitMix)', () => {
  it.each([
    [0, [2462723854, 1020716019, 454327756, 1275600319, 1215922603]],
    [20260718, [1721290320, 192686016, 2554166542, 135376181, 3594073794]],
    [2 ** 32 - 1, [920564995, 4230986166, 697614773, 1778835764, 280495159]],
  ])('seed %i produces the documented stream', (seed, expected) => {
    const random = createSeededRandom(seed);
    expect(expected.map(() => random.nextUint32())).toEqual(expected);
  });

  it('draws unbiased indices by rejection, matching the reference', () => {
    const random = createSeededRandom(20260718);
    expect(Array.from({ length: 10 }, () => random.nextIndex(72))).toEqual([0, 48, 22, 53, 42, 54, 50, 55, 57, 8]);
  });

  it('stays in range and covers every index', () => {
    const random = createSeededRandom(9);
    const seen = new Set<number>();
    for (let i = 0; i < 5000; i += 1) {
      const index = random.nextIndex(7);
      expect(index).toBeGreaterThanOrEqual(0);
      expect(index).toBeLessThan(7);
      seen.add(index);
    }
    expect(seen.size).toBe(7);
  });

  it('rejects seeds outside [0, 2^32)', () => {
    for (const seed of [-1, 0.5, 2 ** 32, Number.NaN]) {
      expect(() => createSeededRandom(seed)).toThrow(StatsError);
    }
  });
});
