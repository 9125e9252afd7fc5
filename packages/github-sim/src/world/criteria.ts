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

/** What the pipeline needs to run a repository's tests and read the outcome. */
export interface RunnerRecipe {
  runner: RunnerId;
  ecosystem: Ecosystem;
  install: string;
  test: string;
  /** How per-test outcomes are read back. */
  report: 'junit-xml' | 'jest-json' | 'go-test-json' | 'cargo-test-text';
}

/**
 * The recipes, and the file signals the world plants for each (a detector following these rules
 * reproduces the ground truth; test/simulator/world has one):
 * - node: package.json whose `scripts.test` exists and is not npm's "no test specified" stub; the
 *   runner is the first of vitest, jest, mocha among `devDependencies`.
 * - python: pytest.ini, `[tool.pytest.ini_options]` in pyproject.toml, or a tests/ folder with test_*.py.
 * - go: go.mod plus at least one *_test.go file.
 * - rust: Cargo.toml plus a tests/*.rs file or `#[cfg(test)]` in a src/ file.
 * - jvm: pom.xml (maven) or build.gradle / build.gradle.kts (gradle) plus a file under src/test/.
 * Other ecosystems (C, C++, Ruby, PHP, C#, Swift, shell, docs) have no recipe.
 */
export const RUNNER_RECIPES: Readonly<Record<RunnerId, RunnerRecipe>> = {
  vitest: {
    runner: 'vitest',
    ecosystem: 'node',
    install: 'npm ci',
    test: 'npx vitest run',
    report: 'jest-json',
  },
  jest: {
    runner: 'jest',
    ecosystem: 'node',
    install: 'npm ci',
    test: 'npx jest --ci',
    report: 'jest-json',
  },
  mocha: {
    runner: 'mocha',
    ecosystem: 'node',
    install: 'npm ci',
    test: 'npx mocha --reporter xunit --reporter-option output=test-report.xml',
    report: 'junit-xml',
  },
  pytest: {
    runner: 'pytest',
    ecosystem: 'python',
    install: 'pip install -e .',
    test: 'python -m pytest --junitxml=test-report.xml',
    report: 'junit-xml',
  },
  'go-test': {
    runner: 'go-test',
    ecosystem: 'go',
    install: 'go mod download',
    test: 'go test -json ./...',
    report: 'go-test-json',
  },
  'cargo-test': {
    runner: 'cargo-test',
    ecosystem: 'rust',
    install: 'cargo fetch',
    test: 'cargo test --no-fail-fast',
    report: 'cargo-test-text',
  },
  maven: {
    runner: 'maven',
    ecosystem: 'jvm',
    install: 'mvn -B -q dependency:go-offline',
    test: 'mvn -B test',
    report: 'junit-xml',
  },
  gradle: {
    runner: 'gradle',
    ecosystem: 'jvm',
    install: './gradlew --no-daemon dependencies',
    test: './gradlew --no-daemon test',
    report: 'junit-xml',
  },
};
