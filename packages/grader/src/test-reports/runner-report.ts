// Owns reading the document abp's own runner reporters write (runner-reporters.ts: jasmine, lab) into the common result
// model. The reporter runs inside the test process, beside the engine's code, so the document is checked field by field
// like any other report and never trusted to be well-formed.
import { z } from 'zod';
import { TestReportError } from './errors.js';
import { relativeToRoot, roundMs, testResult } from './model.js';
import type { ParseOptions, TestResult } from './model.js';
import { RUNNER_REPORT_FORMAT } from './runner-reporters.js';

const Document = z.object({
  format: z.literal(RUNNER_REPORT_FORMAT),
  runner: z.string(),
  tests: z.array(
    z.object({
      id: z.string().min(1),
      status: z.enum(['pass', 'fail', 'error', 'skip']),
      durationMs: z.number().finite().nonnegative().nullable(),
      message: z.string().optional(),
    }),
  ),
});

export function parseRunnerReport(text: string, options: ParseOptions = {}): TestResult[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TestReportError('malformed-report', `${RUNNER_REPORT_FORMAT}: not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const parsed = Document.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue === undefined || issue.path.length === 0 ? 'the document' : issue.path.join('.');
    throw new TestReportError(
      'malformed-report',
      `${RUNNER_REPORT_FORMAT}: ${at}: ${issue?.message ?? 'invalid'}; the report must be the one abp's reporter wrote`,
    );
  }
  return parsed.data.tests.map((test) =>
    testResult(
      // jasmine 5 gives absolute file names when the working directory is not above them; ids stay relative.
      relativeToRoot(test.id, options.rootDir),
      test.status,
      test.durationMs === null ? null : roundMs(test.durationMs),
      test.message,
    ),
  );
}
