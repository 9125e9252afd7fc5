import { describe, expect, it } from 'vitest';
import type { FailureReason, RegistryCriterion, RunnerId } from '../../src/world/criteria.js';
import {
  FAILURE_REASONS,
  isBugLabel,
  isOsiApproved,
  MERGED_PULL_WINDOW_DAYS,
  MIN_BUG_LABELED_OPEN_ISSUES,
  MIN_LABELED_OPEN_ISSUE_SHARE,
  REGISTRY_CRITERIA,
} from '../../src/world/criteria.js';
import { groundTruth } from '../../src/world/ground-truth.js';
import { LABEL_CONVENTIONS } from '../../src/world/labels.js';
import type { SimFile, SimIssue, SimPull, SimRepo } from '../../src/world/model.js';
import type { ScaleWorld } from '../../src/world/scale.js';
import { createScaleWorld } from '../../src/world/scale.js';

type SuiteJudgement = FailureReason<'runnableTestSuite'> | null;

/** An independent detector written from the rules documented with RUNNER_RECIPES: the runner, or why there is none. */
function detectRunner(files: readonly SimFile[]): { runner: RunnerId | null; reason: SuiteJudgement } {
  const byPath = new Map(files.map((file) => [file.path, file.content]));
  const paths = [...byPath.keys()];
  const packageJson = byPath.get('package.json');
  if (packageJson !== undefined) {
    const manifest = JSON.parse(packageJson) as {
      scripts?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const test = manifest.scripts?.test ?? '';
    const runner = (['vitest', 'jest', 'mocha'] as const).find((name) => test.startsWith(name));
    const tested = paths.some((path) => path.startsWith('test/'));
    return runner !== undefined && tested ? { runner, reason: null } : { runner: null, reason: 'no-test-suite' };
  }
  if (byPath.has('pyproject.toml'))
    return paths.some((path) => /^tests\/test_[^/]*\.py$/.test(path))
      ? { runner: 'pytest', reason: null }
      : { runner: null, reason: 'no-test-suite' };
  if (byPath.has('go.mod'))
    return paths.some((path) => path.endsWith('_test.go'))
      ? { runner: 'go-test', reason: null }
      : { runner: null, reason: 'no-test-suite' };
  if (byPath.has('Cargo.toml')) {
    const tests =
      paths.some((path) => /^tests\/[^/]+\.rs$/.test(path)) ||
      (byPath.get('src/lib.rs') ?? '').includes('#[cfg(test)]');
    return tests ? { runner: 'cargo-test', reason: null } : { runner: null, reason: 'no-test-suite' };
  }
  const gradle = byPath.has('build.gradle') || byPath.has('build.gradle.kts');
  if (byPath.has('pom.xml') || gradle) {
    if (!paths.some((path) => path.startsWith('src/test/'))) return { runner: null, reason: 'no-test-suite' };
    return gradle ? { runner: 'gradle', reason: 'unsupported-runner' } : { runner: 'maven', reason: null };
  }
  if (byPath.has('Gemfile') || byPath.has('composer.json')) return { runner: null, reason: 'unsupported-runner' };
  if (byPath.has('CMakeLists.txt')) return { runner: null, reason: 'no-test-suite' };
  return { runner: null, reason: 'unsupported-ecosystem' };
}

function all<T>(fetch: (offset: number, limit: number) => { total: number; items: T[] }): T[] {
  const items: T[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = fetch(offset, 100);
    items.push(...page.items);
    if (offset + 100 >= page.total) return items;
  }
}

/** Each criterion judged from served data only, the way the registry must. */
function judgeFromData(world: ScaleWorld, repo: SimRepo): Record<RegistryCriterion, FailureReason | null> {
  const windowStart = new Date(Date.parse(world.generatedAt) - MERGED_PULL_WINDOW_DAYS * 86_400_000)
    .toISOString()
    .replace('.000Z', 'Z');
  const merged = all((offset, limit) =>
    world.pulls(repo, { states: ['MERGED'], orderBy: { field: 'UPDATED_AT', direction: 'DESC' } }, offset, limit),
  );
  const lastMerged =
    merged
      .map((pull) => pull.mergedAt ?? '')
      .sort()
      .at(-1) ?? null;
  const runner = detectRunner(repo.files);
  const open = all((offset, limit) => world.issues(repo, { states: ['OPEN'] }, offset, limit));
  const labeled = open.filter((issue) => issue.labels.length > 0).length;
  const bugLabeled = open.filter((issue) => issue.labels.some(isBugLabel)).length;
  const license = repo.licenseSpdxId;
  return {
    osiLicense:
      license === null
        ? 'no-license'
        : license === 'NOASSERTION'
          ? 'license-not-recognized'
          : isOsiApproved(license)
            ? null
            : 'license-not-osi-approved',
    notArchivedForkMirror: repo.isArchived
      ? 'archived'
      : repo.isFork
        ? 'fork'
        : repo.mirrorUrl !== null
          ? 'mirror'
          : null,
    mergedPullWithin30Days:
      lastMerged === null ? 'never-merged' : lastMerged < windowStart ? 'no-merge-in-window' : null,
    runnableTestSuite: runner.reason,
    issueHygiene:
      open.length === 0
        ? 'no-open-issues'
        : labeled / open.length < MIN_LABELED_OPEN_ISSUE_SHARE
          ? 'labeled-share-below-threshold'
          : bugLabeled < MIN_BUG_LABELED_OPEN_ISSUES
            ? 'no-bug-label-in-use'
            : null,
  };
}

function checkIssue(world: ScaleWorld, repo: SimRepo, issue: SimIssue): void {
  const labelNames = new Set(repo.labels.map((label) => label.name));
  expect(issue.labels.every((name) => labelNames.has(name))).toBe(true);
  expect(issue.closedAt === null).toBe(issue.state === 'OPEN');
  expect(issue.createdAt <= issue.updatedAt && issue.updatedAt <= world.generatedAt).toBe(true);
  if (issue.closedAt !== null)
    expect(issue.createdAt <= issue.closedAt && issue.closedAt <= issue.updatedAt).toBe(true);
}

function checkPull(world: ScaleWorld, repo: SimRepo, pull: SimPull): void {
  const merged = pull.state === 'MERGED';
  expect(pull.mergedAt !== null).toBe(merged);
  expect(pull.mergeCommitOid !== null).toBe(merged);
  expect(pull.closedAt === null).toBe(pull.state === 'OPEN');
  expect(pull.headRefOid).toMatch(/^[0-9a-f]{40}$/);
  if (merged) {
    expect(pull.mergedAt! >= pull.createdAt && pull.mergedAt! <= world.generatedAt).toBe(true);
    expect(world.userByLogin(pull.mergedByLogin!)?.maintainerOf).toContain(repo.id);
    expect(pull.mergeCommitOid).toMatch(/^[0-9a-f]{40}$/);
    if (repo.lastMergedPullAt !== null) expect(pull.mergedAt! <= repo.lastMergedPullAt).toBe(true);
  }
  for (const number of pull.closesIssues) {
    expect(number).toBeLessThan(pull.number);
    const issue = world.issue(repo, number);
    expect(issue?.state).toBe(pull.state === 'OPEN' ? 'OPEN' : 'CLOSED');
  }
}

describe('scale world ground truth', () => {
  it('agrees with what the served data shows, criterion by criterion', () => {
    const world = createScaleWorld({ seed: 99, repos: 400, issues: 40_000 });
    const truth = groundTruth(world);
    expect(truth.repos).toHaveLength(400);
    expect(truth.eligible.length).toBeGreaterThan(0);
    for (const repoTruth of truth.repos) {
      const repo = world.repoById(repoTruth.repoId)!;
      expect(repoTruth.nameWithOwner).toBe(`${repo.owner}/${repo.name}`);
      const judged = judgeFromData(world, repo);
      const claimed = Object.fromEntries(
        repoTruth.verdicts.map((entry) => [entry.criterion, entry.pass ? null : entry.reason]),
      );
      expect({ repo: repoTruth.nameWithOwner, ...claimed }).toEqual({ repo: repoTruth.nameWithOwner, ...judged });
      expect(repoTruth.verdicts.map((entry) => entry.criterion)).toEqual([...REGISTRY_CRITERIA]);
      expect(repoTruth.eligible).toBe(Object.values(judged).every((reason) => reason === null));
      const planted = detectRunner(repo.files).runner;
      expect(repoTruth.runner?.runner ?? null).toBe(
        planted === 'gradle' ? null : planted === 'maven' ? 'maven-surefire' : planted,
      );
      expect(repoTruth.facts.hasCi).toBe(repo.files.some((file) => file.path.startsWith('.github/workflows/')));
      expect(repoTruth.facts.lastMergedPullAt).toBe(repo.lastMergedPullAt);
    }
  });

  it('keeps stale repositories free of merges in the window and records lastMergedPullAt exactly', () => {
    const world = createScaleWorld({ seed: 3, repos: 250, issues: 25_000 });
    const truth = groundTruth(world);
    const windowStart = new Date(Date.parse(world.generatedAt) - MERGED_PULL_WINDOW_DAYS * 86_400_000)
      .toISOString()
      .replace('.000Z', 'Z');
    let stale = 0;
    for (const repoTruth of truth.repos) {
      const repo = world.repoById(repoTruth.repoId)!;
      const pulls = all((offset, limit) => world.pulls(repo, {}, offset, limit));
      const mergedAt = pulls.flatMap((pull) => (pull.mergedAt === null ? [] : [pull.mergedAt])).sort();
      expect(mergedAt.at(-1) ?? null).toBe(repo.lastMergedPullAt);
      const verdict = repoTruth.verdicts.find((entry) => entry.criterion === 'mergedPullWithin30Days')!;
      if (!verdict.pass && verdict.reason === 'no-merge-in-window') {
        stale++;
        expect(repo.lastMergedPullAt! < windowStart).toBe(true);
        expect(mergedAt.filter((at) => at >= windowStart)).toEqual([]);
      }
      for (const pull of pulls) checkPull(world, repo, pull);
      for (const issue of all((offset, limit) => world.issues(repo, {}, offset, limit))) checkIssue(world, repo, issue);
    }
    expect(stale).toBeGreaterThan(0);
  });

  it('has every distribution feature and failure reason in a 5,000-repository world', () => {
    const world = createScaleWorld({ seed: 2026, repos: 5_000, issues: 1_000_000 });
    const repos = Array.from({ length: world.repoCount() }, (_, index) => world.repoAt(index)!);
    const truth = groundTruth(world);

    const stars = repos.map((repo) => repo.stargazerCount).sort((a, b) => b - a);
    expect(stars[0]).toBeGreaterThanOrEqual(100_000);
    expect(stars.filter((count) => count >= 10_000).length).toBeGreaterThanOrEqual(5);
    expect(stars[2_500]).toBeLessThan(100);

    const languages = new Set(repos.map((repo) => repo.primaryLanguage));
    for (const language of ['TypeScript', 'JavaScript', 'Python', 'Go', 'Rust', 'Java', 'C++', null])
      expect(languages).toContain(language);
    const licenses = new Set(repos.map((repo) => repo.licenseSpdxId));
    for (const license of [
      'MIT',
      'Apache-2.0',
      'BSD-3-Clause',
      'GPL-3.0-only',
      'MPL-2.0',
      'BUSL-1.1',
      'SSPL-1.0',
      'CC-BY-NC-4.0',
      'NOASSERTION',
      null,
    ])
      expect(licenses).toContain(license);
    expect(repos.some((repo) => repo.isArchived)).toBe(true);
    expect(repos.some((repo) => repo.isFork)).toBe(true);
    expect(repos.some((repo) => repo.mirrorUrl !== null)).toBe(true);
    expect(repos.some((repo) => !repo.files.some((file) => file.path.startsWith('.github/workflows/')))).toBe(true);

    const fileSignals: [string, (files: readonly SimFile[]) => boolean][] = [
      [
        'package.json with vitest',
        (files) => files.some((file) => file.path === 'package.json' && file.content.includes('"vitest run"')),
      ],
      [
        'package.json with jest',
        (files) => files.some((file) => file.path === 'package.json' && file.content.includes('"jest"')),
      ],
      [
        'npm test stub',
        (files) => files.some((file) => file.path === 'package.json' && file.content.includes('no test specified')),
      ],
      ['pytest.ini', (files) => files.some((file) => file.path === 'pytest.ini')],
      ['tests/', (files) => files.some((file) => file.path.startsWith('tests/test_'))],
      ['go test file', (files) => files.some((file) => file.path.endsWith('_test.go'))],
      ['Cargo.toml', (files) => files.some((file) => file.path === 'Cargo.toml')],
      [
        'maven tests',
        (files) =>
          files.some((file) => file.path === 'pom.xml') && files.some((file) => file.path.startsWith('src/test/java/')),
      ],
      ['CI workflow', (files) => files.some((file) => file.path === '.github/workflows/ci.yml')],
    ];
    for (const [signal, present] of fileSignals)
      expect(
        repos.some((repo) => present(repo.files)),
        signal,
      ).toBe(true);

    for (const style of Object.values(LABEL_CONVENTIONS)) {
      const bugLabels = style.labels.filter((label) => isBugLabel(label.name));
      expect(bugLabels.map((label) => label.name)).toEqual(style.bug === null ? [] : [style.bug]);
    }
    const bugSpellings = new Set(repos.flatMap((repo) => repo.labels.map((label) => label.name).filter(isBugLabel)));
    expect(bugSpellings).toEqual(new Set(['bug', 'type: bug', 'kind/bug', 'Type: Bug']));

    for (const criterion of REGISTRY_CRITERIA) {
      const reasons = new Set(
        truth.repos.flatMap((repo) =>
          repo.verdicts
            .filter((entry) => entry.criterion === criterion && !entry.pass)
            .map((entry) => (entry.pass ? '' : entry.reason)),
        ),
      );
      expect([...reasons].sort(), criterion).toEqual([...FAILURE_REASONS[criterion]].sort());
    }
    expect(truth.eligible.length).toBeGreaterThan(300);
    expect(truth.eligible.length).toBeLessThan(2_500);

    // An unlabeled backlog really is unlabeled, and questions and debates sit among the bugs.
    const unlabeled = truth.repos.find((repo) => repo.facts.openIssues >= 20 && repo.facts.labeledOpenIssues === 0)!;
    const unlabeledRepo = world.repoById(unlabeled.repoId)!;
    expect(
      all((offset, limit) => world.issues(unlabeledRepo, { states: ['OPEN'] }, offset, limit)).every(
        (issue) => issue.labels.length === 0,
      ),
    ).toBe(true);
    const kinds = new Map<string, number>();
    for (const repo of repos.slice(0, 200))
      for (const issue of world.issues(repo, {}, 0, 100).items) kinds.set(issue.kind, (kinds.get(issue.kind) ?? 0) + 1);
    for (const kind of ['bug', 'feature', 'question', 'feature-debate', 'chore'])
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThan(0);
    expect(kinds.get('bug')!).toBeGreaterThan(kinds.get('question')!);
  });
});
