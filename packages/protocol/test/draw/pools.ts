// Eligible pools and draw inputs for the draw tests: the worked example of docs/draw-algorithm.md and generated pools.
import type { EligiblePool } from '../../src/backlog/types.js';
import type { DrawInputs } from '../../src/draw/record.js';

/** The pool of the worked example (docs/draw-algorithm.md §5). */
export function examplePool(): EligiblePool {
  return {
    repos: [
      { repo: 'acme/rocket', issues: [{ number: 7, title: 'Crash on launch' }] },
      {
        repo: 'beta/widget',
        issues: [
          { number: 3, title: 'Off-by-one in pager' },
          { number: 11, title: 'Tooltip flickers' },
          { number: 42, title: 'Null deref on save' },
        ],
      },
      { repo: 'empty/none', issues: [] },
      {
        repo: 'gamma/lib',
        issues: [
          { number: 100, title: 'Wrong rounding' },
          { number: 205, title: 'Leak in “cache” for "ü" keys' },
        ],
      },
    ],
  };
}

/** The record inputs of the worked example (docs/draw-algorithm.md §6.4). */
export function exampleInputs(): DrawInputs {
  return {
    seed: 424242,
    count: 10,
    drawnAt: '2026-10-03T00:00:00Z',
    registryVersion: 'abp-registry/2026Q4',
    registryDigest: `sha256:${'1'.repeat(64)}`,
    snapshotDigest: `sha256:${'2'.repeat(64)}`,
    eligibilityRules: 'abp-eligibility/1',
    optOuts: new Set(['opted/out']),
    pool: examplePool(),
  };
}

/** Repositories "owner<i>/repo" (zero-padded, so code-unit order is index order) with the given issue counts. */
export function sizedPool(sizes: readonly number[]): EligiblePool {
  return {
    repos: sizes.map((size, index) => ({
      repo: `owner${String(index).padStart(4, '0')}/repo`,
      issues: Array.from({ length: size }, (_, issue) => ({
        number: issue * 3 + 1,
        title: `Issue ${issue * 3 + 1} of repository ${index}`,
      })),
    })),
  };
}
