// Judging candidates from their facts: each criterion's pass and failure reasons in order, license edge cases, the
// merge window's edge, the hygiene thresholds, the freeze's suite detection over the whole tree, overrides, and purity.
import { beforeAll, describe, expect, it } from 'vitest';
import { bugLabelMatcher } from '../../../src/registry/criteria/labels.js';
import { evaluateAll, evaluateCandidate } from '../../../src/registry/criteria/evaluate.js';
import type { CandidateFacts } from '../../../src/registry/criteria/facts.js';
import { candidateFactsSchema } from '../../../src/registry/criteria/facts.js';
import { loadCriteria } from '../../../src/registry/criteria/load.js';
import type { Criteria } from '../../../src/registry/criteria/schema.js';
import type { RegistryCriterion } from '@abp/protocol/registry/vocabulary';
import { FAILURE_REASONS, REGISTRY_CRITERIA } from '@abp/protocol/registry/vocabulary';
import {
  FAILURE_REASONS as WORLD_FAILURE_REASONS,
  isBugLabel,
  LICENSE_OSI_APPROVED,
  REGISTRY_CRITERIA as WORLD_CRITERIA,
  RUNNER_RECIPES,
} from '@abp/github-sim/world/criteria';
import { LABEL_CONVENTIONS } from '@abp/github-sim/world/labels';

const NOW = new Date('2026-11-01T00:00:00Z');
let criteria: Criteria;

beforeAll(async () => {
  criteria = await loadCriteria();
});

const vitestManifest = JSON.stringify({
  name: 'widget',
  scripts: { test: 'vitest run' },
  devDependencies: { vitest: '^3.2.0' },
});

/** An eligible candidate; each test changes what its assertion is about. */
function facts(overrides: Partial<CandidateFacts> = {}): CandidateFacts {
  return candidateFactsSchema.parse({
    nameWithOwner: 'octo-org/widget',
    stargazerCount: 1200,
    defaultBranch: 'main',
    primaryLanguage: 'TypeScript',
    licenseSpdxId: 'MIT',
    isArchived: false,
    isFork: false,
    isMirror: false,
    mergedPullCount: 40,
    lastMergedPullAt: '2026-10-20T08:00:00Z',
    paths: ['README.md', 'package.json', 'src/index.ts', 'test/index.test.ts'],
    texts: { 'package.json': vitestManifest },
    treeTruncated: false,
    openIssues: 10,
    labeledOpenIssues: 8,
    bugLabels: ['bug'],
    bugLabeledOpenIssues: 3,
    ...overrides,
  });
}

/** The failed criteria of an evaluation as { criterion: reason }. */
function failures(
  candidate: CandidateFacts,
  judgedBy: Criteria = criteria,
): Partial<Record<RegistryCriterion, string>> {
  const result: Partial<Record<RegistryCriterion, string>> = {};
  for (const verdict of evaluateCandidate(candidate, judgedBy, NOW).verdicts)
    if (!verdict.pass) result[verdict.criterion] = verdict.reason;
  return result;
}

function verdictOf(candidate: CandidateFacts, criterion: RegistryCriterion) {
  return evaluateCandidate(candidate, criteria, NOW).verdicts.find((verdict) => verdict.criterion === criterion);
}

describe('the vocabulary', () => {
  it('is the one the simulator world publishes', () => {
    expect(REGISTRY_CRITERIA).toEqual(WORLD_CRITERIA);
    expect(FAILURE_REASONS).toEqual(WORLD_FAILURE_REASONS);
  });
});

describe('evaluateCandidate', () => {
  it('passes an eligible candidate on every criterion, in order, with its recipe', () => {
    const evaluation = evaluateCandidate(facts(), criteria, NOW);
    expect(evaluation).toEqual({
      eligible: true,
      verdicts: REGISTRY_CRITERIA.map((criterion) => ({ criterion, pass: true })),
      runner: RUNNER_RECIPES.vitest,
    });
  });

  it('records every failed criterion with its reason, not only the first', () => {
    const evaluation = evaluateCandidate(
      facts({
        licenseSpdxId: null,
        isFork: true,
        lastMergedPullAt: null,
        mergedPullCount: 0,
        openIssues: 0,
        labeledOpenIssues: 0,
        bugLabeledOpenIssues: 0,
      }),
      criteria,
      NOW,
    );
    expect(evaluation.eligible).toBe(false);
    expect(evaluation.verdicts).toEqual([
      { criterion: 'osiLicense', pass: false, reason: 'no-license', detail: 'no license detected' },
      { criterion: 'notArchivedForkMirror', pass: false, reason: 'fork', detail: 'repository is a fork' },
      {
        criterion: 'mergedPullWithin30Days',
        pass: false,
        reason: 'never-merged',
        detail: 'no pull request was ever merged',
      },
      { criterion: 'runnableTestSuite', pass: true },
      { criterion: 'issueHygiene', pass: false, reason: 'no-open-issues', detail: 'no open issues' },
    ]);
  });

  it('is pure: the facts are left as they were and the same input gives the same verdicts', () => {
    const candidate = facts({ licenseSpdxId: 'SSPL-1.0' });
    const before = structuredClone(candidate);
    const first = evaluateCandidate(candidate, criteria, NOW);
    expect(evaluateCandidate(candidate, criteria, NOW)).toEqual(first);
    expect(candidate).toEqual(before);
  });
});

describe('osiLicense', () => {
  it.each([
    [null, 'no-license', 'no license detected'],
    ['NOASSERTION', 'license-not-recognized', 'licenseInfo.spdxId is NOASSERTION'],
    ['Acme-Proprietary-1.0', 'license-not-recognized', 'Acme-Proprietary-1.0 is not in the SPDX license list'],
    // An id that names an Object.prototype member is still not a license.
    ['constructor', 'license-not-recognized', 'constructor is not in the SPDX license list'],
    ['CC0-1.0', 'license-not-osi-approved', 'CC0-1.0 is not OSI-approved'],
    ['BUSL-1.1', 'license-not-osi-approved', 'BUSL-1.1 is not OSI-approved'],
  ])('fails %s with %s', (license, reason, detail) => {
    expect(verdictOf(facts({ licenseSpdxId: license }), 'osiLicense')).toEqual({
      criterion: 'osiLicense',
      pass: false,
      reason,
      detail,
    });
  });

  it.each(['MIT', 'Apache-2.0', 'GPL-2.0', 'GPL-3.0-only', 'MPL-2.0', '0BSD'])(
    'passes %s, an OSI-approved id (deprecated ids GitHub still reports included)',
    (license) => {
      expect(verdictOf(facts({ licenseSpdxId: license }), 'osiLicense')).toEqual({
        criterion: 'osiLicense',
        pass: true,
      });
    },
  );

  it('agrees with the SPDX flags the simulator world hands out', () => {
    for (const [license, approved] of Object.entries(LICENSE_OSI_APPROVED)) {
      expect({ license, pass: verdictOf(facts({ licenseSpdxId: license }), 'osiLicense')?.pass }).toEqual({
        license,
        pass: approved,
      });
    }
  });
});

describe('notArchivedForkMirror', () => {
  it('names archived before fork before mirror', () => {
    expect(failures(facts({ isArchived: true, isFork: true, isMirror: true }))).toEqual({
      notArchivedForkMirror: 'archived',
    });
    expect(failures(facts({ isFork: true, isMirror: true }))).toEqual({ notArchivedForkMirror: 'fork' });
    expect(failures(facts({ isMirror: true }))).toEqual({ notArchivedForkMirror: 'mirror' });
  });
});

describe('mergedPullWithin30Days', () => {
  it('counts a merge exactly 30 days ago and not one a second earlier', () => {
    expect(verdictOf(facts({ lastMergedPullAt: '2026-10-02T00:00:00Z' }), 'mergedPullWithin30Days')).toEqual({
      criterion: 'mergedPullWithin30Days',
      pass: true,
    });
    expect(verdictOf(facts({ lastMergedPullAt: '2026-10-01T23:59:59Z' }), 'mergedPullWithin30Days')).toEqual({
      criterion: 'mergedPullWithin30Days',
      pass: false,
      reason: 'no-merge-in-window',
      detail: 'last merge 2026-10-01T23:59:59Z is before 2026-10-02T00:00:00Z',
    });
  });

  it('takes the window from the criteria file', () => {
    const wider: Criteria = { ...criteria, thresholds: { ...criteria.thresholds, mergedPullWindowDays: 60 } };
    expect(failures(facts({ lastMergedPullAt: '2026-09-10T00:00:00Z' }))).toEqual({
      mergedPullWithin30Days: 'no-merge-in-window',
    });
    expect(failures(facts({ lastMergedPullAt: '2026-09-10T00:00:00Z' }), wider)).toEqual({});
  });
});

describe('issueHygiene', () => {
  it('passes exactly half the open issues labeled and fails one fewer', () => {
    expect(failures(facts({ openIssues: 10, labeledOpenIssues: 5 }))).toEqual({});
    expect(verdictOf(facts({ openIssues: 10, labeledOpenIssues: 4 }), 'issueHygiene')).toEqual({
      criterion: 'issueHygiene',
      pass: false,
      reason: 'labeled-share-below-threshold',
      detail: '4 of 10 open issues labeled (40.0% < 50%)',
    });
  });

  it('needs a bug label in use once the share holds', () => {
    expect(failures(facts({ bugLabels: [], bugLabeledOpenIssues: 0 }))).toEqual({
      issueHygiene: 'no-bug-label-in-use',
    });
    expect(failures(facts({ labeledOpenIssues: 0, bugLabeledOpenIssues: 0 }))).toEqual({
      issueHygiene: 'labeled-share-below-threshold',
    });
  });

  it('recognizes the bug labels projects use, and no look-alikes', () => {
    const isBug = bugLabelMatcher(criteria);
    for (const name of ['bug', 'Bug', ' bug ', 'type: bug', 'Type: Bug', 'kind/bug', 'type:bug'])
      expect({ name, bug: isBug(name) }).toEqual({ name, bug: true });
    for (const name of ['debug', 'bugfix', 'not a bug', 'kind/bugs', 'enhancement'])
      expect({ name, bug: isBug(name) }).toEqual({ name, bug: false });
    for (const convention of Object.values(LABEL_CONVENTIONS)) {
      for (const { name } of convention.labels)
        expect({ name, bug: isBug(name) }).toEqual({ name, bug: isBugLabel(name) });
    }
  });
});

describe('runnableTestSuite', () => {
  const manifest = (value: unknown) => ({ 'package.json': JSON.stringify(value) });
  it.each([
    [
      'vitest',
      ['package.json', 'test/a.test.js'],
      manifest({ scripts: { test: 'vitest run' }, devDependencies: { vitest: '1', jest: '1' } }),
      'vitest',
    ],
    [
      'jest',
      ['package.json', 'src/__tests__/a.js'],
      manifest({ scripts: { test: 'jest' }, devDependencies: { jest: '1', mocha: '1' } }),
      'jest',
    ],
    [
      'mocha',
      ['package.json', 'test/a.js'],
      manifest({ scripts: { test: 'mocha' }, devDependencies: { mocha: '1' } }),
      'mocha',
    ],
    [
      'tests/test_*.py',
      ['pyproject.toml', 'w/__init__.py', 'tests/test_core.py'],
      { 'pyproject.toml': '[project]\nname = "w"\n' },
      'pytest',
    ],
    ['*_test.go in a sub-package', ['go.mod', 'widget.go', 'pkg/x/x_test.go'], {}, 'go-test'],
    ['tests/*.rs', ['Cargo.toml', 'src/lib.rs', 'tests/run.rs'], {}, 'cargo-test'],
    [
      '#[cfg(test)] in src/lib.rs',
      ['Cargo.toml', 'src/lib.rs'],
      { 'src/lib.rs': 'pub fn f() {}\n#[cfg(test)]\nmod tests {}\n' },
      'cargo-test',
    ],
    ['pom.xml and src/test/', ['pom.xml', 'src/main/java/W.java', 'src/test/java/WTest.java'], {}, 'maven'],
  ] as const)('detects %s with the recipe the freeze runs', (_signal, paths, texts, runner) => {
    const candidate = facts({ paths: [...paths], texts });
    expect(evaluateCandidate(candidate, criteria, NOW).runner).toEqual(RUNNER_RECIPES[runner]);
    expect(failures(candidate)).toEqual({});
  });

  it.each([
    [
      "npm init's stub",
      ['package.json', 'test/a.test.js'],
      manifest({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }),
      'node',
    ],
    [
      'a test script without a known runner',
      ['package.json', 'test.js'],
      manifest({ scripts: { test: 'node test.js' } }),
      'node',
    ],
    ['a package.json npm cannot read', ['package.json'], { 'package.json': '{ "scripts": ' }, 'node'],
    ['a pyproject without tests', ['pyproject.toml', 'w/__init__.py'], { 'pyproject.toml': '[project]\n' }, 'python'],
    ['a Go module without tests', ['go.mod', 'main.go'], {}, 'go'],
    ['a crate without tests', ['Cargo.toml', 'src/main.rs'], { 'src/main.rs': 'fn main() {}\n' }, 'rust'],
    ['a Maven project without src/test', ['pom.xml', 'src/main/java/W.java'], {}, 'jvm'],
    ['a CMake project without tests', ['CMakeLists.txt', 'src/lib.cpp'], { 'CMakeLists.txt': 'project(w)\n' }, 'cpp'],
  ] as const)('fails %s as no-test-suite', (_case, paths, texts, ecosystem) => {
    const candidate = facts({ paths: [...paths], texts });
    expect(evaluateCandidate(candidate, criteria, NOW).runner).toBeNull();
    expect(verdictOf(candidate, 'runnableTestSuite')).toEqual({
      criterion: 'runnableTestSuite',
      pass: false,
      reason: 'no-test-suite',
      detail: `no test suite found for ${ecosystem}`,
    });
  });

  it('fails a suite the freeze cannot run here as unsupported-runner, saying why', () => {
    const gradle = facts({
      primaryLanguage: 'Kotlin',
      paths: ['build.gradle.kts', 'settings.gradle.kts', 'src/test/kotlin/WTest.kt'],
      texts: {},
    });
    expect(verdictOf(gradle, 'runnableTestSuite')).toEqual({
      criterion: 'runnableTestSuite',
      pass: false,
      reason: 'unsupported-runner',
      detail:
        'jvm suite run by gradle (gradle): Gradle distributions come from services.gradle.org, which these machines cannot reach',
    });
    const ruby = facts({ primaryLanguage: 'Ruby', paths: ['Gemfile', 'lib/w.rb', 'spec/w_spec.rb'], texts: {} });
    expect(verdictOf(ruby, 'runnableTestSuite')).toMatchObject({
      reason: 'unsupported-runner',
      detail: 'ruby suite run by rspec (bundler): gems come from rubygems.org, which these machines cannot reach',
    });
  });

  it('fails files of no ecosystem detection knows as unsupported-ecosystem, naming the language', () => {
    const swift = facts({ primaryLanguage: 'Swift', paths: ['Package.swift', 'Sources/W/main.swift'], texts: {} });
    expect(verdictOf(swift, 'runnableTestSuite')).toEqual({
      criterion: 'runnableTestSuite',
      pass: false,
      reason: 'unsupported-ecosystem',
      detail: 'no manifest of a supported ecosystem (Swift)',
    });
    const docs = facts({ primaryLanguage: null, paths: ['README.md', 'docs/index.md'], texts: {} });
    expect(verdictOf(docs, 'runnableTestSuite')).toMatchObject({
      reason: 'unsupported-ecosystem',
      detail: 'no manifest of a supported ecosystem (a repository without code)',
    });
  });

  it('finds the suite where its tests are, though the root holds another manifest', () => {
    // A Ruby gem with a package.json for a few assets is a Ruby suite; a truncated listing says so in the detail.
    const gem = facts({
      primaryLanguage: 'Ruby',
      paths: ['Gemfile', 'package.json', 'spec/a_spec.rb', 'spec/b_spec.rb'],
      texts: manifest({ scripts: { build: 'esbuild x' } }),
      treeTruncated: true,
    });
    expect(verdictOf(gem, 'runnableTestSuite')).toMatchObject({ reason: 'unsupported-runner' });
    const pkg = facts({
      paths: ['go.mod', 'package.json', 'a/a_test.go', 'b/b_test.go'],
      texts: manifest({ scripts: { test: 'jest' }, devDependencies: { jest: '1' } }),
    });
    expect(evaluateCandidate(pkg, criteria, NOW).runner?.runner).toBe('go-test');
    const noTests = facts({ paths: ['Cargo.toml', 'src/main.rs'], texts: {}, treeTruncated: true });
    expect(verdictOf(noTests, 'runnableTestSuite')).toMatchObject({
      reason: 'no-test-suite',
      detail: 'no test suite found for rust (in the part of its tree GitHub listed)',
    });
  });

  it('takes an override for the repository, whatever its name case, over detection', () => {
    const recipe = {
      runner: 'make-test',
      ecosystem: 'node',
      install: 'npm ci',
      test: 'make test',
      report: 'junit-xml',
    } as const;
    const overridden: Criteria = {
      ...criteria,
      overrides: [{ repo: 'Octo-Org/Widget', reason: 'Tests run through make.', runner: recipe }],
    };
    const candidate = facts({ paths: ['Makefile', 'package.json'], texts: {} });
    expect(evaluateCandidate(candidate, criteria, NOW).runner).toBeNull();
    expect(evaluateCandidate(candidate, overridden, NOW)).toMatchObject({ eligible: true, runner: recipe });
    expect(
      evaluateCandidate(facts({ nameWithOwner: 'octo-org/other', paths: [], texts: {} }), overridden, NOW).runner,
    ).toBeNull();
  });
});

describe('evaluateAll', () => {
  it('judges every candidate, in the order given, under its name', () => {
    const candidates = [facts({ nameWithOwner: 'b/one' }), facts({ nameWithOwner: 'a/two', isArchived: true })];
    const evaluations = evaluateAll(candidates, criteria, NOW);
    expect(evaluations.map((evaluation) => [evaluation.nameWithOwner, evaluation.eligible])).toEqual([
      ['b/one', true],
      ['a/two', false],
    ]);
  });
});
