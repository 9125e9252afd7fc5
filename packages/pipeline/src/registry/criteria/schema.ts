// The shapes of the two committed criteria files, as zod schemas: the versioned criteria (thresholds, bug-label
// patterns, runner-detection rules) and the per-repository runner overrides. Loading and error reporting: load.ts.
import { z } from 'zod';
import { testReportFormats } from '@abp/protocol/schemas/abp-registry';
import { command, describeValue, nonBlankText, repoFullName } from '@abp/protocol/schemas/primitives';

export const CRITERIA_VERSION_PATTERN = /^abp-criteria\/[1-9][0-9]*$/;
export const OVERRIDES_VERSION = 'abp-criteria-overrides/1';

/**
 * Report formats a recipe may name. `cargo-test-text` is libtest's plain output, what `cargo test` prints on stable
 * Rust; schemas/abp-registry.ts does not list it yet, so it is added here until the registry schema does.
 */
export const runnerReportFormats = testReportFormats;

const identifier = z.string().regex(/^[a-z][a-z0-9-]*$/, {
  error: (issue) => `must be a lowercase id such as "vitest" or "go-test", got ${describeValue(issue.input)}`,
});

export const runnerRecipeSchema = z.strictObject({
  runner: identifier,
  ecosystem: identifier,
  install: z
    .union([command, z.array(command).min(1)])
    .describe('One command line, or several run in order; each runs without a shell, so never joined with "&&".'),
  test: command,
  report: z.enum(runnerReportFormats),
  toolchain: z
    .strictObject({
      python: z.string().min(1).optional(),
      node: z.string().min(1).optional(),
      go: z.string().min(1).optional(),
      rust: z.string().min(1).optional(),
    })
    .optional()
    .describe(
      'The toolchain versions the environment carries, where the repository does not say (requires-python, .nvmrc, go.mod, rust-toolchain.toml).',
    ),
  base: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, {
      error: 'must be the digest of a base imported with `abp env import`, e.g. "sha256:" and 64 hex digits',
    })
    .optional()
    .describe('An OCI base image in the environment store, instead of the Debian base abp builds.'),
});
/** How the freeze step installs a repository and runs its tests, and how it reads per-test outcomes back. */
export type RunnerRecipe = z.infer<typeof runnerRecipeSchema>;

/** A recipe's install as its list of steps. */
export function installSteps(recipe: Pick<RunnerRecipe, 'install'>): string[] {
  return typeof recipe.install === 'string' ? [recipe.install] : [...recipe.install];
}

/**
 * A path in the repository, relative to its root. The last segment may hold `*` (any characters but "/"); a trailing
 * "/" names a folder. Folders above the last segment are literal: discovery lists exactly those folders.
 */
const pathPattern = z.string().regex(/^(?:[A-Za-z0-9._-]+\/)*[A-Za-z0-9._*-]+\/?$/, {
  error: (issue) =>
    `must be a relative path whose last segment may hold "*" (e.g. "tests/test_*.py", "src/test/"), got ${describeValue(issue.input)}`,
});
const filePath = z.string().regex(/^(?:[A-Za-z0-9._-]+\/)*[A-Za-z0-9._-]+$/, {
  error: (issue) =>
    `must be a relative file path without wildcards (e.g. "pyproject.toml"), got ${describeValue(issue.input)}`,
});

const simpleCondition = z.discriminatedUnion('kind', [
  z
    .strictObject({ kind: z.literal('path'), anyOf: z.array(pathPattern).min(1) })
    .describe('Some listed path matches one of the patterns.'),
  z
    .strictObject({ kind: z.literal('text'), path: filePath, contains: z.string().min(1) })
    .describe('The file exists and contains the text.'),
  z
    .strictObject({
      kind: z.literal('npm-script'),
      script: z.string().min(1),
      containing: z.string().min(1).optional(),
      notContaining: z.string().min(1).optional(),
    })
    .describe(
      'package.json has this script; it contains `containing` (e.g. Node\'s own runner, "node --test") and not `notContaining` (npm init\'s stub).',
    ),
  z
    .strictObject({ kind: z.literal('npm-dev-dependency'), name: z.string().min(1) })
    .describe('package.json lists the package in devDependencies.'),
]);
export type SimpleCondition = z.infer<typeof simpleCondition>;

export const conditionSchema = z.discriminatedUnion('kind', [
  ...simpleCondition.options,
  z
    .strictObject({ kind: z.literal('any'), of: z.array(simpleCondition).min(2) })
    .describe('At least one of the conditions holds.'),
]);
export type Condition = z.infer<typeof conditionSchema>;

const recipeRule = runnerRecipeSchema.omit({ ecosystem: true }).extend({
  when: z.array(conditionSchema).describe('All must hold; an empty list always holds.'),
});

const ecosystemRule = z
  .strictObject({
    ecosystem: identifier,
    detect: z.array(conditionSchema).min(1).describe('All must hold for the repository to belong to this ecosystem.'),
    runners: z.array(recipeRule).min(1).describe('Tried in order; the first whose conditions hold is the recipe.'),
  })
  .superRefine((rule, ctx) => {
    rule.runners.forEach((runner, index) => {
      const first = rule.runners.findIndex((other) => other.runner === runner.runner);
      if (first !== index)
        ctx.addIssue({
          code: 'custom',
          path: ['runners', index, 'runner'],
          message: `repeats ${describeValue(runner.runner)} of runners.${first}; name each runner once`,
        });
    });
  });

const regexSource = z.string().refine(
  (source) => {
    try {
      new RegExp(source, 'i');
      return true;
    } catch {
      return false;
    }
  },
  { error: (issue) => `must be a JavaScript regular expression, got ${describeValue(issue.input)}` },
);

export const criteriaDocumentSchema = z
  .strictObject({
    version: z.string().regex(CRITERIA_VERSION_PATTERN, {
      error: (issue) => `must be "abp-criteria/<n>", e.g. "abp-criteria/1", got ${describeValue(issue.input)}`,
    }),
    thresholds: z.strictObject({
      mergedPullWindowDays: z
        .int()
        .positive()
        .describe('A merged pull request counts when mergedAt >= now - this many days.'),
      minLabeledOpenIssueShare: z
        .number()
        .min(0)
        .max(1)
        .describe('Share of open issues carrying at least one label (inclusive).'),
      minBugLabeledOpenIssues: z.int().positive().describe('Open issues that must carry a bug label.'),
    }),
    bugLabelPatterns: z
      .array(regexSource)
      .min(1)
      .describe('Case-insensitive regular expressions; a label whose trimmed name matches one is a bug label.'),
    ecosystems: z
      .array(ecosystemRule)
      .min(1)
      .describe('Tried in order; the first whose detect conditions hold is the ecosystem.'),
  })
  .superRefine((document, ctx) => {
    document.ecosystems.forEach((rule, index) => {
      const first = document.ecosystems.findIndex((other) => other.ecosystem === rule.ecosystem);
      if (first !== index)
        ctx.addIssue({
          code: 'custom',
          path: ['ecosystems', index, 'ecosystem'],
          message: `repeats ${describeValue(rule.ecosystem)} of ecosystems.${first}; list each ecosystem once`,
        });
    });
  });
export type CriteriaDocument = z.infer<typeof criteriaDocumentSchema>;

export const overridesDocumentSchema = z.strictObject({
  version: z.literal(OVERRIDES_VERSION, {
    error: (issue) => `must be "${OVERRIDES_VERSION}", got ${describeValue(issue.input)}`,
  }),
  overrides: z
    .array(
      z.strictObject({
        repo: repoFullName,
        reason: nonBlankText.describe('Why detection is overridden, for the audit trail.'),
        runner: runnerRecipeSchema,
      }),
    )
    .superRefine((overrides, ctx) => {
      overrides.forEach((override, index) => {
        const first = overrides.findIndex((other) => other.repo.toLowerCase() === override.repo.toLowerCase());
        if (first !== index)
          ctx.addIssue({
            code: 'custom',
            path: [index, 'repo'],
            message: `repeats ${describeValue(override.repo)} of overrides.${first} (GitHub names are case-insensitive); override each repository once`,
          });
      });
    }),
});
export type OverridesDocument = z.infer<typeof overridesDocumentSchema>;
export type RunnerOverride = OverridesDocument['overrides'][number];

/** The criteria a rotation judges by: the criteria file with the overrides file's runner overrides. */
export interface Criteria extends CriteriaDocument {
  overrides: readonly RunnerOverride[];
}
