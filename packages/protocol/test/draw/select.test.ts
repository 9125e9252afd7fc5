// The seeded selection: determinism, uniform choice of repository then issue, no repeats, running out, refused inputs.
import { describe, expect, it } from 'vitest';
import type { EligiblePool } from '../../src/backlog/types.js';
import { DrawError } from '../../src/draw/errors.js';
import type { Pick } from '../../src/draw/select.js';
import { drawStream, selectIssues, seedText, uniformIndex } from '../../src/draw/select.js';
import { examplePool, sizedPool } from './pools.js';

const key = (pick: Pick) => `${pick.repo}#${pick.number}`;

/** A stream that plays back fixed 32-bit values and counts how many were read. */
function scripted(values: number[]): { next: () => number; read: () => number } {
  let index = 0;
  return {
    next: () => {
      const value = values[index++];
      if (value === undefined) throw new Error('the scripted stream ran dry');
      return value;
    },
    read: () => index,
  };
}

/** Pearson's chi-square statistic of observed counts against equal expected counts. */
function chiSquare(observed: number[]): number {
  const total = observed.reduce((sum, count) => sum + count, 0);
  const expected = total / observed.length;
  return observed.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
}

function drawError(run: () => unknown): DrawError {
  try {
    run();
  } catch (error) {
    if (error instanceof DrawError) return error;
    throw error;
  }
  throw new Error('expected a DrawError, nothing was thrown');
}

describe('uniformIndex', () => {
  it('rejects values at or above the largest multiple of n below 2^32, then takes the remainder', () => {
    // 2^32 mod 3 = 1, so the limit is 2^32 - 1 and the value 2^32 - 1 alone is rejected.
    const stream = scripted([4_294_967_295, 4_294_967_294]);
    expect(uniformIndex(stream.next, 3)).toBe(4_294_967_294 % 3);
    expect(stream.read()).toBe(2);
  });

  it('reads one value even when there is a single choice, and never rejects for a power of two', () => {
    const stream = scripted([4_294_967_295, 7]);
    expect(uniformIndex(stream.next, 1)).toBe(0);
    expect(stream.read()).toBe(1);
    expect(uniformIndex(stream.next, 4)).toBe(3);
    expect(stream.read()).toBe(2);
  });

  it('refuses a count of choices it cannot serve', () => {
    for (const n of [0, 1.5, 2 ** 32 + 1]) expect(() => uniformIndex(() => 0, n)).toThrow(RangeError);
  });
});

describe('seedText and drawStream', () => {
  it('write the seed in plain decimal after the algorithm id and refuse what is not a non-negative safe integer', () => {
    expect(seedText(424242)).toBe('abp-draw/v1:424242');
    expect(seedText(0)).toBe('abp-draw/v1:0');
    expect(seedText(Number.MAX_SAFE_INTEGER)).toBe('abp-draw/v1:9007199254740991');
    for (const seed of [-1, 1.5, 2 ** 53, Number.NaN])
      expect(drawError(() => seedText(seed)).code).toBe('invalid-seed');
  });

  it('gives the same 32-bit values for the same seed, unsigned', () => {
    const first = drawStream(7);
    const second = drawStream(7);
    const values = Array.from({ length: 1000 }, () => first());
    expect(Array.from({ length: 1000 }, () => second())).toEqual(values);
    expect(values.every((value) => Number.isInteger(value) && value >= 0 && value < 2 ** 32)).toBe(true);
    expect(values.some((value) => value >= 2 ** 31)).toBe(true);
  });
});

describe('selectIssues', () => {
  it('gives the same picks for the same seed and different picks for different seeds', () => {
    const pool = sizedPool([40, 3, 17, 90, 1, 25, 60, 8]);
    expect(selectIssues(pool, { seed: 99, count: 12 })).toEqual(selectIssues(pool, { seed: 99, count: 12 }));
    // 1 and 11, 42 and 424242, 123 and 123123: seeds whose digits repeat a shorter seed's, which bare RC4 keys would merge.
    const seeds = [...Array.from({ length: 200 }, (_, seed) => seed), 424242, 123123, 1111, 4242];
    const draws = seeds.map((seed) => selectIssues(pool, { seed, count: 12 }).map(key).join(' '));
    expect(new Set(draws).size).toBe(seeds.length);
  });

  it('chooses the repository first: a repository with 1 issue leads as often as one with 1,000', () => {
    const sizes = [1, 10, 100, 1000];
    const pool = sizedPool(sizes);
    const firstRepo = new Map(pool.repos.map((entry, index) => [entry.repo, index]));
    const counts = sizes.map(() => 0);
    for (let seed = 0; seed < 4000; seed++) {
      const [first] = selectIssues(pool, { seed, count: 1 });
      const index = first ? firstRepo.get(first.repo) : undefined;
      if (index === undefined) throw new Error(`seed ${seed} picked nothing from a known repository`);
      counts[index] = (counts[index] ?? 0) + 1;
    }
    // 16.27 is the 0.1% critical value with 3 degrees of freedom; picking issues uniformly would give the
    // 1-issue repository about 4 of 4000 first picks and a statistic in the thousands.
    expect(chiSquare(counts)).toBeLessThan(16.27);
    expect(Math.min(...counts)).toBeGreaterThan(850);
  });

  it('chooses an issue uniformly within the chosen repository', () => {
    const pool = sizedPool([10]);
    const numbers = pool.repos[0]?.issues.map((issue) => issue.number) ?? [];
    const counts = numbers.map(() => 0);
    for (let seed = 0; seed < 5000; seed++) {
      const [first] = selectIssues(pool, { seed, count: 1 });
      const index = numbers.indexOf(first?.number ?? -1);
      counts[index] = (counts[index] ?? 0) + 1;
    }
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(5000);
    // 27.88 is the 0.1% critical value with 9 degrees of freedom.
    expect(chiSquare(counts)).toBeLessThan(27.88);
  });

  it('never picks an issue twice and, asked for everything, picks every issue once', () => {
    const pool = sizedPool([1, 5, 20, 0, 7, 2]);
    const everything = pool.repos.flatMap((entry) => entry.issues.map((issue) => `${entry.repo}#${issue.number}`));
    for (const seed of [0, 1, 2, 424242]) {
      const picks = selectIssues(pool, { seed, count: everything.length }).map(key);
      expect(new Set(picks).size).toBe(picks.length);
      expect([...picks].sort()).toEqual([...everything].sort());
    }
  });

  it('stops when the pool runs out, and draws nothing from an empty pool', () => {
    expect(selectIssues(examplePool(), { seed: 5, count: 1000 })).toHaveLength(6);
    expect(selectIssues({ repos: [] }, { seed: 5, count: 3 })).toEqual([]);
    expect(selectIssues({ repos: [{ repo: 'a/b', issues: [] }] }, { seed: 5, count: 3 })).toEqual([]);
  });

  it('takes the k-th remaining issue of the k-th remaining repository, as a list with removals would', () => {
    // The plain reading of the algorithm: lists from which picks and emptied repositories are spliced out.
    const reference = (pool: EligiblePool, seed: number, count: number): Pick[] => {
      const next = drawStream(seed);
      const repos = pool.repos
        .filter((entry) => entry.issues.length > 0)
        .map((entry) => ({ repo: entry.repo, issues: [...entry.issues] }));
      const picks: Pick[] = [];
      while (picks.length < count && repos.length > 0) {
        const r = uniformIndex(next, repos.length);
        const entry = repos[r];
        if (!entry) throw new Error('no repository');
        const [issue] = entry.issues.splice(uniformIndex(next, entry.issues.length), 1);
        if (!issue) throw new Error('no issue');
        picks.push({ repo: entry.repo, number: issue.number, title: issue.title });
        if (entry.issues.length === 0) repos.splice(r, 1);
      }
      return picks;
    };
    for (let seed = 0; seed < 200; seed++) {
      const sizes = Array.from(
        { length: 1 + (seed % 13) },
        (_, index) => ((seed * 7 + index * 5) % 11) + (index % 3 === 0 ? 0 : 1),
      );
      const pool = sizedPool(sizes);
      const count = 1 + ((seed * 3) % 40);
      expect(selectIssues(pool, { seed, count })).toEqual(reference(pool, seed, count));
    }
  });

  it('refuses a pool out of the documented order, and a count that is not a positive whole number', () => {
    const swapped = examplePool();
    swapped.repos.reverse();
    expect(drawError(() => selectIssues(swapped, { seed: 1, count: 1 })).code).toBe('unsorted-pool');
    const repeated: EligiblePool = {
      repos: [
        { repo: 'a/b', issues: [{ number: 1, title: 'x' }] },
        { repo: 'a/b', issues: [{ number: 2, title: 'y' }] },
      ],
    };
    expect(drawError(() => selectIssues(repeated, { seed: 1, count: 1 })).code).toBe('unsorted-pool');
    const issuesDown: EligiblePool = {
      repos: [
        {
          repo: 'a/b',
          issues: [
            { number: 5, title: 'x' },
            { number: 2, title: 'y' },
          ],
        },
      ],
    };
    expect(drawError(() => selectIssues(issuesDown, { seed: 1, count: 1 })).code).toBe('unsorted-pool');
    const caseOrder: EligiblePool = {
      repos: [
        { repo: 'b/x', issues: [{ number: 1, title: 'x' }] },
        { repo: 'B/y', issues: [{ number: 1, title: 'y' }] },
      ],
    };
    expect(drawError(() => selectIssues(caseOrder, { seed: 1, count: 1 })).code).toBe('unsorted-pool');
    for (const count of [0, -1, 2.5])
      expect(drawError(() => selectIssues(examplePool(), { seed: 1, count })).code).toBe('invalid-count');
    expect(drawError(() => selectIssues(examplePool(), { seed: -3, count: 1 })).code).toBe('invalid-seed');
  });
});
