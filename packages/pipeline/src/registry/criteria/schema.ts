// The shapes of the two committed criteria files, as zod schemas: the versioned criteria (thresholds, bug-label
// patterns, the suite detection they judge by) and the per-repository runner overrides. Loading and error reporting: load.ts.
import { z } from 'zod';
import { testReportFormats } from '@abp/protocol/schemas/abp-registry';
import { command, describeValue, nonBlankText, repoFullName } from '@abp/protocol/schemas/primitives';
import { SUITE_DETECTION } from '../suites/suite.js';

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
      bun: z.string().min(1).optional(),
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

export const criteriaDocumentSchema = z.strictObject({
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
  suiteDetection: z
    .literal(SUITE_DETECTION, {
      error: (issue) =>
        `must be "${SUITE_DETECTION}", the suite detection this abp runs (the freeze's own, registry/suites/), got ${describeValue(issue.input)}; criteria written for another detection are judged by the abp release that has it`,
    })
    .describe(
      "The test-suite detection a candidate is judged by: the freeze's own, so an entry's runner is one the freeze installs, runs and reads.",
    ),
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
