// Owns the input of one freeze (a merged fix, its repository and how to run its tests), validated so
// that every problem names the field and its fix before any checkout or test run is attempted.

import { z } from 'zod';
import { formatIssues } from '@abp/protocol/schemas/issues';
import type { PathRules } from '@abp/grader/diff';
import { CommandLineError, parseCommandLine } from '@abp/grader/verification';
import { planRunner } from '@abp/grader/verification';
import { installSteps, runnerRecipeSchema, type RunnerRecipe } from '../registry/criteria/schema.js';
import { githubTaskId } from '@abp/protocol/schemas/abp-task';
import { describeValue, gitSha, repoFullName } from '@abp/protocol/schemas/primitives';
import { FreezeError } from './errors.js';

export interface FreezeInput {
  /** gh-<owner>-<name>-<issue> */
  taskId: string;
  /** owner/name */
  repo: string;
  /** A local git repository (bare or not) holding baseCommit and, for fix.kind 'commit', the fix commit. */
  gitDir: string;
  /** 40-hex pre-fix commit: the base the pull request merged onto. */
  baseCommit: string;
  /** commit: the fix is the diff base..commit (for a merge commit, its diff against base). */
  fix: { kind: 'commit'; commit: string } | { kind: 'patch'; patch: string };
  recipe: RunnerRecipe;
  /** Per-repository split overrides (grader/diff/paths.ts). */
  pathRules?: PathRules;
}

const globs = z.array(z.string().min(1, 'must be a non-empty glob such as "fixtures/**"'));

const freezeInputSchema = z.strictObject({
  taskId: z.string().regex(/^gh-.+-[1-9][0-9]*$/, {
    error: (issue) =>
      `must be "gh-<owner>-<name>-<issue>", e.g. "gh-vercel-next.js-81234", got ${describeValue(issue.input)}`,
  }),
  repo: repoFullName,
  gitDir: z.string().min(1, 'must name a local git repository, e.g. "/srv/mirrors/vercel/next.js.git"'),
  baseCommit: gitSha,
  fix: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('commit'), commit: gitSha }),
    z.strictObject({
      kind: z.literal('patch'),
      patch: z.string().min(1, 'must be the fix as `git diff` output; it is empty'),
    }),
  ]),
  recipe: runnerRecipeSchema,
  pathRules: z
    .strictObject({ test: globs.optional(), notTest: globs.optional(), generated: globs.optional() })
    .optional(),
});

/** Validates a freeze input; throws FreezeError 'invalid-input' or 'unsupported-runner' naming the field. */
export function parseFreezeInput(value: unknown): FreezeInput {
  const parsed = freezeInputSchema.safeParse(value);
  if (!parsed.success)
    throw new FreezeError('invalid-input', `the freeze input is not valid:\n${formatIssues(parsed.error.issues)}`);
  const { pathRules, ...input } = parsed.data;
  const issue = Number(/-(\d+)$/.exec(input.taskId)?.[1]);
  const expectedId = githubTaskId(input.repo, issue);
  if (input.taskId !== expectedId) {
    throw new FreezeError(
      'invalid-input',
      `taskId ${describeValue(input.taskId)} does not name repo ${describeValue(input.repo)}; expected "${expectedId}"`,
    );
  }
  checkRecipe(input.recipe);
  const rules: PathRules = {};
  if (pathRules?.test !== undefined) rules.test = pathRules.test;
  if (pathRules?.notTest !== undefined) rules.notTest = pathRules.notTest;
  if (pathRules?.generated !== undefined) rules.generated = pathRules.generated;
  return pathRules === undefined ? input : { ...input, pathRules: rules };
}

function checkRecipe(recipe: RunnerRecipe): void {
  const lines = [
    ...installSteps(recipe).map((line, index) => [
      typeof recipe.install === 'string' ? 'install' : `install[${index}]`,
      line,
    ]),
    ['test', recipe.test],
  ] as const;
  for (const [field, line] of lines) {
    try {
      parseCommandLine(line);
    } catch (error) {
      if (!(error instanceof CommandLineError)) throw error;
      throw new FreezeError('invalid-input', `recipe.${field}: ${error.message}`, { cause: error });
    }
  }
  // Any absolute folder will do: only whether the runner can leave a report matters here.
  const plan = planRunner(parseCommandLine(recipe.test).argv, '/abp-report');
  if (plan.report === null) {
    throw new FreezeError(
      'unsupported-runner',
      `recipe.test ${describeValue(recipe.test)} does not name a runner the freeze can read per-test results from (pytest, go test, cargo test, node --test, vitest, jest, mvn test); call the runner itself rather than a package script`,
    );
  }
}
