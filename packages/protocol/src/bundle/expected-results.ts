// The held-out expected results (held-out/expected-results.json, abp-expected-results/v1): which test ids a fix must
// turn from failing to passing, which must keep passing, which are quarantined as flaky, and the commands that run them.
import { z } from 'zod';
import { formatIssues } from '../schemas/issues.js';
import { testReportFormats } from '../schemas/abp-registry.js';
import { canonicalJson } from '../schemas/canonical-json.js';
import { command, compareCodeUnits, describeValue, duplicateIndices, nonBlankText } from '../schemas/primitives.js';
import { BundleError } from './errors.js';

export const EXPECTED_RESULTS_SCHEMA_ID = 'abp-expected-results/v1';

/** One run's outcome of a test; "missing" when the run's report does not name it. */
export const testOutcomes = ['pass', 'fail', 'error', 'skip', 'missing'] as const;

function listedOnce<T>(label: string, key: (value: T) => string) {
  return (values: T[], ctx: z.core.$RefinementCtx<T[]>) => {
    for (const { index, first } of duplicateIndices(values, key)) {
      ctx.addIssue({
        code: 'custom',
        path: [index],
        message: `repeats ${label}[${first}] ${describeValue(key(values[index] as T))}; list each once`,
      });
    }
  };
}

const testIds = (label: string) => z.array(nonBlankText).superRefine(listedOnce<string>(label, String));

const outcomes = z.array(z.enum(testOutcomes)).min(1, 'must hold the outcome of at least one run');

export const expectedResultsSchema = z
  .strictObject({
    schema: z.literal(EXPECTED_RESULTS_SCHEMA_ID),
    runner: z.string().regex(/^[a-z][a-z0-9-]*$/, {
      error: (issue) => `must be a runner id such as "vitest" or "go-test", got ${describeValue(issue.input)}`,
    }),
    reportFormat: z.enum(testReportFormats),
    failToPass: testIds('failToPass').min(
      1,
      'must list at least one test: a task without FAIL_TO_PASS cannot tell a fix from no change',
    ),
    passToPass: testIds('passToPass'),
    flaky: z
      .array(z.strictObject({ id: nonBlankText, outcomes: z.strictObject({ before: outcomes, after: outcomes }) }))
      .superRefine(listedOnce<{ id: string }>('flaky', (test) => test.id))
      .describe('Quarantined: outcomes differed between runs of one state; never graded.'),
    commands: z.strictObject({
      failToPass: z.array(command).min(1, 'must hold the command that runs the FAIL_TO_PASS tests'),
      passToPass: z.array(command),
    }),
  })
  .superRefine((results, ctx) => {
    // A test belongs to one set: graded as newly passing, graded as still passing, or quarantined.
    const failing = new Set(results.failToPass);
    results.passToPass.forEach((id, index) => {
      if (failing.has(id))
        ctx.addIssue({
          code: 'custom',
          path: ['passToPass', index],
          message: `${describeValue(id)} is also in failToPass; a test belongs to one set`,
        });
    });
    const graded = new Set([...results.failToPass, ...results.passToPass]);
    results.flaky.forEach((test, index) => {
      if (graded.has(test.id))
        ctx.addIssue({
          code: 'custom',
          path: ['flaky', index, 'id'],
          message: `${describeValue(test.id)} is also graded in failToPass or passToPass; a flaky test is never graded`,
        });
    });
  });

export type ExpectedResults = z.infer<typeof expectedResultsSchema>;

/** Validates `value`, naming `file` and each offending field. */
export function parseExpectedResults(value: unknown, file: string): ExpectedResults {
  const parsed = expectedResultsSchema.safeParse(value);
  if (!parsed.success)
    throw new BundleError(
      'invalid-expected-results',
      `${file} is not a valid ${EXPECTED_RESULTS_SCHEMA_ID} document:\n${formatIssues(parsed.error.issues)}`,
    );
  return parsed.data;
}

/** The file's bytes: canonical JSON with the test sets sorted, so the order a freeze found tests in leaves no trace. */
export function serializeExpectedResults(results: ExpectedResults): Buffer {
  const sorted: ExpectedResults = {
    ...results,
    failToPass: [...results.failToPass].sort(compareCodeUnits),
    passToPass: [...results.passToPass].sort(compareCodeUnits),
    flaky: [...results.flaky].sort((a, b) => compareCodeUnits(a.id, b.id)),
  };
  return Buffer.from(canonicalJson(sorted), 'utf8');
}
