import { describe, expect, it } from 'vitest';
import { hash2, hash3, hash4, mix32, objectId, Rng, Weighted } from '../../src/world/random.js';

describe('seeded randomness', () => {
  it('is a pure function of its inputs', () => {
    expect(hash3(1, 2, 3)).toBe(hash3(1, 2, 3));
    expect(hash2(1, 2)).not.toBe(hash2(2, 1));
    expect(hash4(1, 2, 3, 4)).not.toBe(hash4(1, 2, 3, 5));
    expect(mix32(0)).toBe(0);
    expect(mix32(1)).not.toBe(1);
    const a = new Rng(42);
    const b = new Rng(42);
    const first = Array.from({ length: 100 }, () => a.next());
    expect(Array.from({ length: 100 }, () => b.next())).toEqual(first);
    expect(new Rng(0).reseed(42).next()).toBe(first[0]);
    expect(new Rng(43).next()).not.toBe(first[0]);
  });

  it('spreads values evenly enough for sampling', () => {
    const rng = new Rng(7);
    const buckets = new Array<number>(10).fill(0);
    let outOfRange = 0;
    for (let i = 0; i < 100_000; i++) {
      const value = rng.float();
      if (value < 0 || value >= 1) outOfRange++;
      else buckets[Math.floor(value * 10)]!++;
    }
    expect(outOfRange).toBe(0);
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(500);
    // Consecutive hashed counters must not correlate (the backlog hashes adjacent numbers).
    let agree = 0;
    for (let n = 0; n < 10_000; n++) if (hash3(1, 2, n) % 2 === hash3(1, 2, n + 1) % 2) agree++;
    expect(Math.abs(agree - 5_000)).toBeLessThan(250);
  });

  it('samples weighted categories in proportion', () => {
    const table = new Weighted<string>([
      ['a', 1],
      ['b', 3],
      ['c', 0],
    ]);
    const rng = new Rng(3);
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 40_000; i++) counts[table.sample(rng)]!++;
    expect(counts.c).toBe(0);
    expect(Math.abs(counts.b! / 40_000 - 0.75)).toBeLessThan(0.02);
    expect(() => new Weighted<string>([['a', 0]])).toThrow(RangeError);
  });

  it('derives 40-hex object ids', () => {
    expect(objectId(1, 2, 3, 4)).toMatch(/^[0-9a-f]{40}$/);
    expect(objectId(1, 2, 3, 4)).toBe(objectId(1, 2, 3, 4));
    expect(objectId(1, 2, 3, 4)).not.toBe(objectId(1, 2, 3, 5));
  });
});
