import { describe, expect, it } from 'vitest';
import { buildRegistry, entryRunner, type EvaluatedCandidate } from '../../../src/registry/rotation/build-registry.js';
import { registrySchema } from '@abp/protocol/schemas/abp-registry';
import { registryDigest } from '@abp/protocol/schemas/registry-digest';

const runner = {
  language: 'typescript',
  install: ['npm ci'],
  test: ['npx vitest run'],
  reportFormat: 'junit-xml' as const,
};
const candidate = (repo: string, stars: number, overrides: Partial<EvaluatedCandidate> = {}): EvaluatedCandidate => ({
  repo,
  stars,
  license: 'MIT',
  defaultBranch: 'main',
  eligible: true,
  failures: [],
  runner,
  ...overrides,
});
const base = { criteriaVersion: 'abp-criteria/1', optOuts: new Set<string>() };

describe('buildRegistry', () => {
  const first = buildRegistry({
    ...base,
    version: 'abp-registry/2026Q3',
    sourcedAt: '2026-07-01T00:00:00Z',
    previous: null,
    size: 3,
    candidates: [
      candidate('zeta/z', 50),
      candidate('alpha/a', 10),
      candidate('beta/b', 30),
      candidate('gamma/g', 40),
      candidate('delta/d', 90, { eligible: false, failures: [{ criterion: 'osiLicense', reason: 'no-license' }] }),
    ],
  });

  it('lists the top eligible repositories by stars, sorted by name, with a valid digest', () => {
    expect(first.entries.map((entry) => entry.repo)).toEqual(['beta/b', 'gamma/g', 'zeta/z']);
    expect(first.digest).toBe(registryDigest(first));
    expect(registrySchema.safeParse(first).success).toBe(true);
    expect(first.diff).toEqual({ added: ['beta/b', 'gamma/g', 'zeta/z'], removed: [], kept: [] });
  });

  it('diffs against the previous version with a reason for every repository that left', () => {
    const next = buildRegistry({
      ...base,
      version: 'abp-registry/2026Q4',
      sourcedAt: '2026-10-01T00:00:00Z',
      previous: first,
      size: 3,
      optOuts: new Set(['Gamma/G']),
      candidates: [
        candidate('zeta/z', 55),
        candidate('gamma/g', 45),
        candidate('beta/b', 31, {
          eligible: false,
          failures: [
            { criterion: 'mergedPullWithin30Days', reason: 'no-merge-in-window', detail: 'last merge 41 days ago' },
          ],
        }),
        candidate('new/n', 70),
        candidate('alpha/a', 12),
      ],
    });
    expect(next.entries.map((entry) => [entry.repo, entry.addedIn])).toEqual([
      ['alpha/a', 'abp-registry/2026Q4'],
      ['new/n', 'abp-registry/2026Q4'],
      ['zeta/z', 'abp-registry/2026Q3'],
    ]);
    expect(next.previous).toBe('abp-registry/2026Q3');
    expect(next.diff).toEqual({
      added: ['alpha/a', 'new/n'],
      removed: [
        { repo: 'beta/b', reason: 'inactive', detail: 'last merge 41 days ago' },
        { repo: 'gamma/g', reason: 'opted-out' },
      ],
      kept: ['zeta/z'],
    });
    expect(registrySchema.safeParse(next).success).toBe(true);
  });

  it('names a repository that was not discovered again, and one outranked by others', () => {
    const next = buildRegistry({
      ...base,
      version: 'abp-registry/2026Q4',
      sourcedAt: '2026-10-01T00:00:00Z',
      previous: first,
      size: 2,
      candidates: [candidate('zeta/z', 50), candidate('gamma/g', 40), candidate('beta/b', 30)],
    });
    expect(next.diff.removed).toEqual([
      { repo: 'beta/b', reason: 'out-of-top-500', detail: '30 stars is below the 2 listed' },
    ]);
    const gone = buildRegistry({
      ...base,
      version: 'abp-registry/2026Q4',
      sourcedAt: '2026-10-01T00:00:00Z',
      previous: first,
      size: 3,
      candidates: [candidate('zeta/z', 50), candidate('gamma/g', 40)],
    });
    expect(gone.diff.removed).toEqual([
      { repo: 'beta/b', reason: 'out-of-top-500', detail: 'not among the discovered candidates' },
    ]);
  });

  it('gives the same bytes whatever order the candidates came in', () => {
    const candidates = [candidate('b/b', 5), candidate('a/a', 5), candidate('c/c', 9)];
    const one = buildRegistry({
      ...base,
      version: 'abp-registry/2026Q3',
      sourcedAt: '2026-07-01T00:00:00Z',
      previous: null,
      candidates,
    });
    const two = buildRegistry({
      ...base,
      version: 'abp-registry/2026Q3',
      sourcedAt: '2026-07-01T00:00:00Z',
      previous: null,
      candidates: [...candidates].reverse(),
    });
    expect(JSON.stringify(two)).toBe(JSON.stringify(one));
  });
});

describe('entryRunner', () => {
  it('lists a detected recipe the way a registry entry holds it', () => {
    expect(
      entryRunner(
        {
          runner: 'cargo-test',
          ecosystem: 'rust',
          install: 'cargo fetch',
          test: 'cargo test',
          report: 'cargo-test-text',
        },
        'Rust',
      ),
    ).toEqual({
      language: 'rust',
      install: ['cargo fetch'],
      test: ['cargo test'],
      reportFormat: 'cargo-test-text',
    });
    expect(
      entryRunner(
        { runner: 'pytest', ecosystem: 'python', install: 'pip install -e .', test: 'pytest', report: 'junit-xml' },
        null,
      ).language,
    ).toBe('python');
  });
});
