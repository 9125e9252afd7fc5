// The registry criteria as the scale world understands them: thresholds, the OSI flags of the
// licenses the world hands out, what counts as a bug label, and the runner recipes detectable from
// a repository's files. The generator plans each repository against these and the ground truth
// reports against them; the registry judges by its own rules (registry/criteria/) and must agree.

// The criteria and reason codes are the registry's published vocabulary; the world's ground truth speaks it too.
export {
  FAILURE_REASONS,
  REGISTRY_CRITERIA,
  type FailureReason,
  type RegistryCriterion,
} from '@abp/protocol/registry/vocabulary';

/** A merged pull request counts when `mergedAt >= generatedAt - 30 days` (inclusive). */
export const MERGED_PULL_WINDOW_DAYS = 30;
/** Issue hygiene: at least this share of open issues carries one or more labels (inclusive). */
export const MIN_LABELED_OPEN_ISSUE_SHARE = 0.5;
/** Issue hygiene: at least this many open issues carry a bug label (see `isBugLabel`). */
export const MIN_BUG_LABELED_OPEN_ISSUES = 1;

export const REGISTRY_THRESHOLDS = {
  mergedPullWindowDays: MERGED_PULL_WINDOW_DAYS,
  minLabeledOpenIssueShare: MIN_LABELED_OPEN_ISSUE_SHARE,
  minBugLabeledOpenIssues: MIN_BUG_LABELED_OPEN_ISSUES,
} as const;

/**
 * OSI approval of every SPDX id the scale world assigns, as the SPDX license list flags it
 * (`isOsiApproved`, which `spdx-license-list` carries as `osiApproved`). 'NOASSERTION' and a
 * missing license are not licenses and fail with their own reasons.
 */
export const LICENSE_OSI_APPROVED: Readonly<Record<string, boolean>> = {
  MIT: true,
  'Apache-2.0': true,
  'BSD-3-Clause': true,
  'BSD-2-Clause': true,
  'GPL-3.0-only': true,
  'GPL-2.0-only': true,
  'AGPL-3.0-only': true,
  'LGPL-2.1-only': true,
  'MPL-2.0': true,
  ISC: true,
  Unlicense: true,
  '0BSD': true,
  'EPL-2.0': true,
  Zlib: true,
  'BSL-1.0': true,
  'BUSL-1.1': false,
  'SSPL-1.0': false,
  'CC-BY-NC-4.0': false,
  'CC0-1.0': false,
  WTFPL: false,
  'Elastic-2.0': false,
};

export function isOsiApproved(spdxId: string): boolean {
  return LICENSE_OSI_APPROVED[spdxId] ?? false;
}

/** Bug labels as projects spell them: `bug`, `Bug`, `type: bug`, `Type: Bug`, `kind/bug`. */
export const BUG_LABEL_PATTERN = /^(?:(?:type|kind)\s*[:/]\s*)?bug$/i;

export function isBugLabel(name: string): boolean {
  return BUG_LABEL_PATTERN.test(name.trim());
}

export type Ecosystem = 'node' | 'python' | 'go' | 'rust' | 'jvm';
export type RunnerId = 'vitest' | 'jest' | 'mocha' | 'pytest' | 'go-test' | 'cargo-test' | 'maven' | 'gradle';

/** What the pipeline needs to run a repository's tests and read the outcome, as the registry records it. */
export interface RunnerRecipe {
  runner: string;
  ecosystem: Ecosystem;
  install: string[];
  test: string;
  /** How per-test outcomes are read back. */
  report: 'junit-xml' | 'jest-json' | 'go-test-json' | 'cargo-test-text';
}

/**
 * The recipe the registry records for each planted runner (its suite detection, registry/suites/, must find these),
 * and the file signals the world plants for each (a detector following these rules reproduces the ground truth;
 * test/world has one):
 * - node: package.json whose `scripts.test` calls the runner (npm's "no test specified" stub is no suite), no
 *   lockfile (so npm install), and a test file under test/.
 * - python: pyproject.toml with a tests/test_*.py file (pytest configured or not).
 * - go: go.mod plus at least one *_test.go file.
 * - rust: Cargo.toml plus a tests/*.rs file or `#[cfg(test)]` in src/lib.rs.
 * - jvm: pom.xml (maven) or build.gradle / build.gradle.kts (gradle) plus a file under src/test/.
 * Gradle suites have no recipe: Gradle's distributions come from services.gradle.org, which the freeze cannot reach.
 * Ruby (rspec) and PHP (phpunit) suites are found but have no recipe either; C++ repositories carry no tests; C, C#,
 * Swift, shell and docs repositories have no ecosystem detection knows.
 */
export const RUNNER_RECIPES: Readonly<Record<Exclude<RunnerId, 'gradle'>, RunnerRecipe>> = {
  vitest: {
    runner: 'vitest',
    ecosystem: 'node',
    install: ['npm install --no-audit --no-fund'],
    test: 'node_modules/.bin/vitest run',
    report: 'jest-json',
  },
  jest: {
    runner: 'jest',
    ecosystem: 'node',
    install: ['npm install --no-audit --no-fund'],
    test: 'node_modules/.bin/jest',
    report: 'jest-json',
  },
  mocha: {
    runner: 'mocha',
    ecosystem: 'node',
    install: ['npm install --no-audit --no-fund'],
    test: 'node_modules/.bin/mocha',
    report: 'junit-xml',
  },
  pytest: {
    runner: 'pytest',
    ecosystem: 'python',
    install: ['python -m pip install -e .', 'python -m pip install pytest'],
    test: 'python -m pytest',
    report: 'junit-xml',
  },
  'go-test': {
    runner: 'go-test',
    ecosystem: 'go',
    install: ['go mod download'],
    test: 'go test ./...',
    report: 'go-test-json',
  },
  'cargo-test': {
    runner: 'cargo-test',
    ecosystem: 'rust',
    install: ['cargo fetch'],
    test: 'cargo test --no-fail-fast',
    report: 'cargo-test-text',
  },
  maven: {
    runner: 'maven-surefire',
    ecosystem: 'jvm',
    install: ['mvn -B -q test -Dmaven.test.failure.ignore=true'],
    test: 'mvn -B -fae test -Dmaven.test.failure.ignore=true',
    report: 'junit-xml',
  },
};

/** The recipe of a planted runner, or null when the registry has none for it. */
export function recipeOf(runner: RunnerId | null): RunnerRecipe | null {
  return runner === null || runner === 'gradle' ? null : RUNNER_RECIPES[runner];
}

/** Why a suite the world plants cannot be run here, in the registry's words (`unsupported-runner`). */
export const UNRUNNABLE_SUITES = {
  gradle:
    'jvm suite run by gradle (gradle): Gradle distributions come from services.gradle.org, which these machines cannot reach',
  Ruby: 'ruby suite run by rspec (bundler): gems come from rubygems.org, which these machines cannot reach',
  PHP: 'php suite run by phpunit (composer): packages come from Packagist, which these machines cannot reach',
} as const;
